package dev.weir.bench.nexmark;

/** The records the Nexmark queries emit, the same in both engines' jobs. */
public final class Results {
    private Results() {}

    /** q2: a bid on one of the selected auctions. */
    public record AuctionPrice(long auction, long price) {}

    /** q3: a person of OR, ID or CA who sells in category 10, with one such auction. */
    public record SellerAuction(String name, String city, String state, long auction) {}

    /** q4, first stage: the winning price of a closed auction, with its category. */
    public record ClosingPrice(long auction, long category, long price) {}

    /** q4: the running average closing price of a category after {@code count} auctions. */
    public record CategoryAverage(long category, long count, long sum, long average) {
        /** The average after one more closing price. */
        public CategoryAverage plus(long price) {
            return new CategoryAverage(
                    category, count + 1, sum + price, (sum + price) / (count + 1));
        }
    }

    /** q5: the auction with the most bids in the sliding window ending at {@code windowEnd}. */
    public record HotItem(long windowEnd, long auction, long bids) {
        /** The hotter of two: more bids, then the smaller auction id. */
        public static HotItem hotter(HotItem a, HotItem b) {
            if (a.bids != b.bids) {
                return a.bids > b.bids ? a : b;
            }
            return a.auction <= b.auction ? a : b;
        }
    }

    /** q7: the highest bid of the tumbling window ending at {@code windowEnd}. */
    public record HighestBid(long windowEnd, long auction, long bidder, long price, long dateTime) {
        /** The window's highest bid from {@code bid}. */
        public static HighestBid of(long windowEnd, Bid bid) {
            return new HighestBid(
                    windowEnd, bid.auction(), bid.bidder(), bid.price(), bid.dateTime());
        }

        /** The higher of two: by price, then the earlier, then the smaller auction and bidder. */
        public static HighestBid higher(HighestBid a, HighestBid b) {
            return beats(
                            a.price,
                            a.dateTime,
                            a.auction,
                            a.bidder,
                            b.price,
                            b.dateTime,
                            b.auction,
                            b.bidder)
                    ? a
                    : b;
        }
    }

    /** The higher of two bids: by price, then the earlier, then the smaller auction and bidder. */
    public static Bid higherBid(Bid a, Bid b) {
        return beats(
                        a.price(),
                        a.dateTime(),
                        a.auction(),
                        a.bidder(),
                        b.price(),
                        b.dateTime(),
                        b.auction(),
                        b.bidder())
                ? a
                : b;
    }

    /** True if bid a (price, time, auction, bidder) is at least as high as bid b. */
    private static boolean beats(
            long priceA,
            long timeA,
            long auctionA,
            long bidderA,
            long priceB,
            long timeB,
            long auctionB,
            long bidderB) {
        if (priceA != priceB) {
            return priceA > priceB;
        }
        if (timeA != timeB) {
            return timeA < timeB;
        }
        if (auctionA != auctionB) {
            return auctionA < auctionB;
        }
        return bidderA <= bidderB;
    }

    /** q8: a person who opened an auction in the same tumbling window as they registered. */
    public record NewUser(long id, String name, long windowStart) {}

    /** q11: a bidder's session of bids, {@code [start, end)} including the gap after the last. */
    public record Session(long bidder, long bids, long start, long end) {}
}
