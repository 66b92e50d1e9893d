package dev.weir.bench.nexmark;

/**
 * A Nexmark bid of a person on an auction.
 *
 * @param auction the auction's id
 * @param bidder the bidder's person id
 * @param price price in cents
 * @param channel where the bid came from
 * @param dateTime event time in ms since the epoch
 */
public record Bid(long auction, long bidder, long price, String channel, long dateTime) {
    /** This bid with {@code newPrice}. */
    public Bid withPrice(long newPrice) {
        return new Bid(auction, bidder, newPrice, channel, dateTime);
    }
}
