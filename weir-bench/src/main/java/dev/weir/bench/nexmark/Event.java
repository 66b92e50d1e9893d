package dev.weir.bench.nexmark;

/**
 * One Nexmark event: exactly one of {@code person}, {@code auction} and {@code bid} is set.
 *
 * @param person a new person, or null
 * @param auction a new auction, or null
 * @param bid a new bid, or null
 */
public record Event(Person person, Auction auction, Bid bid) {
    /** The event's time in ms since the epoch. */
    public long timestamp() {
        if (bid != null) {
            return bid.dateTime();
        }
        return person != null ? person.dateTime() : auction.dateTime();
    }
}
