package dev.weir.bench.nexmark;

/**
 * A Nexmark auction: an item put up for sale by a person until {@code expires}.
 *
 * @param id auction id, from {@value NexmarkGenerator#FIRST_AUCTION_ID}
 * @param itemName item name
 * @param description item description
 * @param initialBid first price, in cents
 * @param reserve lowest price the seller accepts, in cents
 * @param dateTime event time (the auction opens) in ms since the epoch
 * @param expires event time at which the auction closes, in ms since the epoch
 * @param seller the seller's person id
 * @param category category id, 10 to 14
 */
public record Auction(
        long id,
        String itemName,
        String description,
        long initialBid,
        long reserve,
        long dateTime,
        long expires,
        long seller,
        long category) {}
