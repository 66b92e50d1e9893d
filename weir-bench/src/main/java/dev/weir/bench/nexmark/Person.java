package dev.weir.bench.nexmark;

/**
 * A Nexmark person: someone who opens an account to sell or bid.
 *
 * @param id person id, from {@value NexmarkGenerator#FIRST_PERSON_ID}
 * @param name first and last name
 * @param email e-mail address
 * @param creditCard card number
 * @param city US city
 * @param state US state, two letters
 * @param dateTime event time in ms since the epoch
 */
public record Person(
        long id,
        String name,
        String email,
        String creditCard,
        String city,
        String state,
        long dateTime) {}
