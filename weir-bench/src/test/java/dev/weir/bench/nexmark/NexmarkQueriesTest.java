package dev.weir.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobResult;
import dev.weir.api.RestartStrategy;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import dev.weir.bench.FlinkNexmarkBench;
import dev.weir.bench.NexmarkBench;
import dev.weir.bench.nexmark.Results.AuctionPrice;
import dev.weir.bench.nexmark.Results.CategoryAverage;
import dev.weir.bench.nexmark.Results.HighestBid;
import dev.weir.bench.nexmark.Results.HotItem;
import dev.weir.bench.nexmark.Results.NewUser;
import dev.weir.bench.nexmark.Results.SellerAuction;
import dev.weir.bench.nexmark.Results.Session;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each Nexmark query gives the same results on Weir and on Flink (both exactly-once, P=2, the same
 * seeded events), and the same as a recomputation in memory from the generated events. Small
 * windows (1 s tumbling, 1 s sliding every 500 ms, 500 ms sessions) over 10 s of event time, so
 * every query fires several windows.
 */
class NexmarkQueriesTest {
    private static final NexmarkConfig CONFIG =
            new NexmarkConfig(100_000, 7, 10_000, 1_000, 1_000, 500, 500);
    private static final List<Event> EVENTS = new ArrayList<>();

    @TempDir Path dir;

    @BeforeAll
    static void generate() {
        NexmarkGenerator generator = new NexmarkGenerator(CONFIG);
        for (long n = 0; n < CONFIG.events(); n++) {
            EVENTS.add(generator.event(n));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8", "q11"})
    void weirAndFlinkAgreeWithARecomputationInMemory(String query) throws Exception {
        List<String> weir = runWeir(query);
        List<String> flink = runFlink(query);
        if (query.equals("q4")) {
            // A running average: which intermediate values appear depends on arrival order; the
            // last one per category does not.
            weir = lastAveragePerCategory(weir);
            flink = lastAveragePerCategory(flink);
        }
        assertThat(weir).isNotEmpty().isEqualTo(flink).isEqualTo(expected(query));
    }

    /**
     * A failure in the middle of a query (after the sink pre-committed its second checkpoint) and
     * the restart from the last checkpoint leave the committed output of the exactly-once file sink
     * equal to the recomputation: window state, timers, join state and source positions all come
     * back.
     */
    @ParameterizedTest
    @ValueSource(strings = {"q0", "q3", "q4", "q5", "q7", "q8", "q11"})
    void weirCommitsTheSameResultsThroughAFailureAndRestart(String query) throws Exception {
        Path out = dir.resolve("out");
        Faults.throwAt(FaultPoint.SINK_AFTER_PRECOMMIT, 2);
        JobResult result;
        try {
            result =
                    NexmarkBench.pipeline(
                                    query,
                                    CONFIG,
                                    2,
                                    20,
                                    dir.resolve("chk"),
                                    FileSink.<Object>to(out))
                            .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO))
                            .run();
        } finally {
            Faults.disarm();
        }
        assertThat(result.restarts()).isEqualTo(1);
        List<String> committed = FileSink.readCommitted(out);
        // Equal as sorted lists, so with multiplicities: q0 and q8 have equal rows of their own.
        if (query.equals("q4")) {
            committed = lastAveragePerCategory(committed);
        }
        assertThat(sorted(committed)).isNotEmpty().isEqualTo(expected(query));
    }

    private List<String> runWeir(String query) throws Exception {
        CollectSink<Object> sink = Sinks.collect();
        NexmarkBench.pipeline(query, CONFIG, 2, 1000, dir.resolve("weir"), sink).run();
        return sorted(sink.results().stream().map(Object::toString).toList());
    }

    private List<String> runFlink(String query) throws Exception {
        FlinkNexmarkBench.COLLECTED.clear();
        FlinkNexmarkBench.run(query, CONFIG, 2, 1000, dir.resolve("flink"), true);
        return sorted(List.copyOf(FlinkNexmarkBench.COLLECTED));
    }

    private static List<String> expected(String query) {
        List<Bid> bids = EVENTS.stream().map(Event::bid).filter(b -> b != null).toList();
        List<Person> persons = EVENTS.stream().map(Event::person).filter(p -> p != null).toList();
        List<Auction> auctions =
                EVENTS.stream().map(Event::auction).filter(a -> a != null).toList();
        Collection<?> results =
                switch (query) {
                    case "q0" -> EVENTS;
                    case "q1" ->
                            bids.stream()
                                    .map(b -> b.withPrice(WeirQueries.dollarsToEuros(b.price())))
                                    .toList();
                    case "q2" ->
                            bids.stream()
                                    .filter(b -> b.auction() % 123 == 0)
                                    .map(b -> new AuctionPrice(b.auction(), b.price()))
                                    .toList();
                    case "q3" -> q3(persons, auctions);
                    case "q4" -> q4(auctions, bids);
                    case "q5" -> q5(bids);
                    case "q7" -> q7(bids);
                    case "q8" -> q8(persons, auctions);
                    case "q11" -> q11(bids);
                    default -> throw new IllegalArgumentException(query);
                };
        List<String> strings = results.stream().map(Object::toString).toList();
        return query.equals("q4") ? lastAveragePerCategory(strings) : sorted(strings);
    }

    private static List<SellerAuction> q3(List<Person> persons, List<Auction> auctions) {
        Map<Long, Person> sellers =
                persons.stream()
                        .filter(p -> List.of("OR", "ID", "CA").contains(p.state()))
                        .collect(Collectors.toMap(Person::id, Function.identity()));
        return auctions.stream()
                .filter(a -> a.category() == 10 && sellers.containsKey(a.seller()))
                .map(a -> WeirQueries.join(sellers.get(a.seller()), a))
                .toList();
    }

    private static List<CategoryAverage> q4(List<Auction> auctions, List<Bid> bids) {
        Map<Long, List<Bid>> byAuction = bids.stream().collect(Collectors.groupingBy(Bid::auction));
        Map<Long, CategoryAverage> averages = new TreeMap<>();
        for (Auction auction : auctions) {
            long best = -1;
            for (Bid bid : byAuction.getOrDefault(auction.id(), List.of())) {
                if (WeirQueries.validBid(auction, bid)) {
                    best = Math.max(best, bid.price());
                }
            }
            if (best >= 0) {
                averages.put(
                        auction.category(),
                        averages.getOrDefault(
                                        auction.category(),
                                        new CategoryAverage(auction.category(), 0, 0, 0))
                                .plus(best));
            }
        }
        return List.copyOf(averages.values());
    }

    private static List<HotItem> q5(List<Bid> bids) {
        Map<Long, Map<Long, Long>> countsByWindowEnd = new HashMap<>();
        for (Bid bid : bids) {
            long lastStart = bid.dateTime() - Math.floorMod(bid.dateTime(), CONFIG.slideMs());
            for (long start = lastStart;
                    start > bid.dateTime() - CONFIG.windowMs();
                    start -= CONFIG.slideMs()) {
                countsByWindowEnd
                        .computeIfAbsent(start + CONFIG.windowMs(), end -> new HashMap<>())
                        .merge(bid.auction(), 1L, Long::sum);
            }
        }
        List<HotItem> hottest = new ArrayList<>();
        countsByWindowEnd.forEach(
                (end, counts) ->
                        hottest.add(
                                counts.entrySet().stream()
                                        .map(e -> new HotItem(end, e.getKey(), e.getValue()))
                                        .reduce(HotItem::hotter)
                                        .orElseThrow()));
        return hottest;
    }

    private static Collection<HighestBid> q7(List<Bid> bids) {
        Map<Long, HighestBid> highest = new HashMap<>();
        for (Bid bid : bids) {
            long end = windowStart(bid.dateTime()) + CONFIG.windowMs();
            highest.merge(end, HighestBid.of(end, bid), HighestBid::higher);
        }
        return highest.values();
    }

    private static List<NewUser> q8(List<Person> persons, List<Auction> auctions) {
        List<NewUser> users = new ArrayList<>();
        Map<Long, List<Auction>> bySeller =
                auctions.stream().collect(Collectors.groupingBy(Auction::seller));
        for (Person person : persons) {
            long start = windowStart(person.dateTime());
            for (Auction auction : bySeller.getOrDefault(person.id(), List.of())) {
                if (windowStart(auction.dateTime()) == start) {
                    users.add(new NewUser(person.id(), person.name(), start));
                }
            }
        }
        return users;
    }

    private static List<Session> q11(List<Bid> bids) {
        Map<Long, List<Long>> times = new TreeMap<>();
        for (Bid bid : bids) {
            times.computeIfAbsent(bid.bidder(), b -> new ArrayList<>()).add(bid.dateTime());
        }
        List<Session> sessions = new ArrayList<>();
        long gap = CONFIG.sessionGapMs();
        times.forEach(
                (bidder, list) -> {
                    list.sort(null);
                    long start = list.get(0);
                    long last = start;
                    long count = 0;
                    for (long t : list) {
                        if (t > last + gap) {
                            sessions.add(new Session(bidder, count, start, last + gap));
                            start = t;
                            count = 0;
                        }
                        last = t;
                        count++;
                    }
                    sessions.add(new Session(bidder, count, start, last + gap));
                });
        return sessions;
    }

    private static long windowStart(long time) {
        return time - Math.floorMod(time, CONFIG.windowMs());
    }

    /** Of q4's running averages, the one with the largest count per category. */
    private static List<String> lastAveragePerCategory(List<String> averages) {
        Map<String, String> last = new TreeMap<>();
        Map<String, Long> counts = new HashMap<>();
        for (String average : averages) {
            String category = field(average, "category");
            long count = Long.parseLong(field(average, "count"));
            if (count > counts.getOrDefault(category, -1L)) {
                counts.put(category, count);
                last.put(category, average);
            }
        }
        return List.copyOf(last.values());
    }

    private static String field(String record, String name) {
        int start = record.indexOf(name + "=") + name.length() + 1;
        int end = start;
        while (end < record.length() && Character.isDigit(record.charAt(end))) {
            end++;
        }
        return record.substring(start, end);
    }

    private static List<String> sorted(List<String> values) {
        return values.stream().sorted().toList();
    }
}
