package dev.weir.bench.nexmark;

import dev.weir.api.DataStream;
import dev.weir.api.Pipeline;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.function.Collector;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.state.ListState;
import dev.weir.api.state.ValueState;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.api.window.WindowAssigner;
import dev.weir.bench.nexmark.Results.AuctionPrice;
import dev.weir.bench.nexmark.Results.CategoryAverage;
import dev.weir.bench.nexmark.Results.ClosingPrice;
import dev.weir.bench.nexmark.Results.HighestBid;
import dev.weir.bench.nexmark.Results.HotItem;
import dev.weir.bench.nexmark.Results.NewUser;
import dev.weir.bench.nexmark.Results.SellerAuction;
import dev.weir.bench.nexmark.Results.Session;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The Nexmark queries as Weir pipelines: the source with bounded-out-of-orderness watermarks, then
 * each query in Weir's own API (windows, window joins, keyed process functions with state and
 * timers). {@link FlinkQueries} holds the same queries on Flink; {@code NexmarkQueriesTest} checks
 * that both give the same results.
 */
public final class WeirQueries {
    /** The queries, in the order the benchmark runs them. */
    public static final List<String> QUERIES =
            List.of("q0", "q1", "q2", "q3", "q4", "q5", "q7", "q8", "q11");

    static final Set<String> Q3_STATES = Set.of("OR", "ID", "CA");
    static final long Q3_CATEGORY = 10;
    static final long Q2_AUCTION_SKIP = 123;

    private WeirQueries() {}

    /** Adds the source and {@code query} to {@code pipeline}; returns the query's results. */
    public static DataStream<?> build(String query, Pipeline pipeline, NexmarkConfig config) {
        DataStream<Event> events =
                pipeline.source("nexmark", new NexmarkSource(config))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Event>forBoundedOutOfOrderness(
                                                Duration.ofMillis(config.maxOutOfOrdernessMs()))
                                        .withTimestampAssigner(
                                                (event, previous) -> event.timestamp()));
        return switch (query) {
            case "q0" -> events;
            case "q1" -> bids(events).map(bid -> bid.withPrice(dollarsToEuros(bid.price())));
            case "q2" ->
                    bids(events)
                            .filter(bid -> bid.auction() % Q2_AUCTION_SKIP == 0)
                            .map(bid -> new AuctionPrice(bid.auction(), bid.price()));
            case "q3" -> q3(events);
            case "q4" -> q4(events);
            case "q5" -> q5(bids(events), config);
            case "q7" -> q7(bids(events), config);
            case "q8" -> q8(events, config);
            case "q11" -> q11(bids(events), config);
            default -> throw unknown(query);
        };
    }

    public static IllegalArgumentException unknown(String query) {
        return new IllegalArgumentException(
                "unknown nexmark query '" + query + "'; use one of " + QUERIES);
    }

    /** q1's conversion: dollars to euros at 0.908, in whole cents. */
    static long dollarsToEuros(long cents) {
        return cents * 908 / 1000;
    }

    private static DataStream<Bid> bids(DataStream<Event> events) {
        return events.filter(event -> event.bid() != null).map(Event::bid);
    }

    /**
     * q3, an incremental join: sellers from OR, ID or CA with their auctions in category 10, each
     * pair emitted as soon as both sides have arrived. Both kinds of event keep their own type
     * (Event) up to the join, keyed by person id.
     */
    private static DataStream<SellerAuction> q3(DataStream<Event> events) {
        return events.filter(
                        event ->
                                (event.person() != null
                                                && Q3_STATES.contains(event.person().state()))
                                        || (event.auction() != null
                                                && event.auction().category() == Q3_CATEGORY))
                .keyBy(
                        event ->
                                event.person() != null
                                        ? event.person().id()
                                        : event.auction().seller())
                .process("q3-join", IncrementalJoin::new);
    }

    /** q3's join: the person in ValueState, auctions waiting for their seller in ListState. */
    static final class IncrementalJoin implements KeyedProcessFunction<Long, Event, SellerAuction> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Person> person;
        private transient ListState<Auction> waiting;

        @Override
        public void open(OpenContext context) {
            person = context.states().valueState("person", Codecs.record(Person.class));
            waiting = context.states().listState("waiting", Codecs.record(Auction.class));
        }

        @Override
        public void process(
                Event event, Context<Long, SellerAuction> context, Collector<SellerAuction> out) {
            if (event.person() != null) {
                Person seller = event.person();
                person.update(seller);
                for (Auction auction : waiting.get()) {
                    out.collect(join(seller, auction));
                }
                waiting.clear();
            } else {
                Person seller = person.value();
                if (seller != null) {
                    out.collect(join(seller, event.auction()));
                } else {
                    waiting.add(event.auction());
                }
            }
        }
    }

    static SellerAuction join(Person person, Auction auction) {
        return new SellerAuction(person.name(), person.city(), person.state(), auction.id());
    }

    /**
     * q4: each auction's winning price when it closes (its auction and bids keyed by auction id,
     * closed by an event-time timer at its expiry), then the running average per category.
     */
    private static DataStream<CategoryAverage> q4(DataStream<Event> events) {
        Codec<CategoryAverage> codec = Codecs.record(CategoryAverage.class);
        return events.filter(event -> event.person() == null)
                .keyBy(event -> event.bid() != null ? event.bid().auction() : event.auction().id())
                .process("q4-winning-bids", WinningBids::new)
                .keyBy(ClosingPrice::category)
                .process(
                        "q4-average",
                        codec,
                        (category, closing, average, out) -> {
                            CategoryAverage current = average.value();
                            CategoryAverage next =
                                    (current == null
                                                    ? new CategoryAverage(category, 0, 0, 0)
                                                    : current)
                                            .plus(closing.price());
                            average.update(next);
                            out.collect(next);
                        });
    }

    /**
     * A bid wins its auction if it is the highest at or above the reserve made while the auction
     * was open ({@code dateTime <= bid time < expires}).
     */
    static boolean validBid(Auction auction, Bid bid) {
        return bid.dateTime() >= auction.dateTime()
                && bid.dateTime() < auction.expires()
                && bid.price() >= auction.reserve();
    }

    /**
     * q4's first stage, per auction id: the auction, the best valid price so far, and bids that
     * came before their auction (each with a timer at its own time: once the watermark passes it,
     * an auction it could be valid for would have arrived, so it is dropped). A timer at the
     * auction's expiry emits the winning price and clears the key.
     */
    static final class WinningBids implements KeyedProcessFunction<Long, Event, ClosingPrice> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Auction> auction;
        private transient ValueState<Long> best;
        private transient ListState<Bid> early;

        @Override
        public void open(OpenContext context) {
            auction = context.states().valueState("auction", Codecs.record(Auction.class));
            best = context.states().valueState("best", Codecs.LONG);
            early = context.states().listState("early", Codecs.record(Bid.class));
        }

        @Override
        public void process(
                Event event, Context<Long, ClosingPrice> context, Collector<ClosingPrice> out) {
            if (event.auction() != null) {
                Auction opened = event.auction();
                auction.update(opened);
                context.timers().registerEventTimeTimer(opened.expires());
                for (Bid bid : early.get()) {
                    offer(opened, bid);
                }
                early.clear();
                return;
            }
            Bid bid = event.bid();
            Auction known = auction.value();
            if (known != null) {
                offer(known, bid);
            } else {
                early.add(bid);
                context.timers().registerEventTimeTimer(bid.dateTime());
            }
        }

        private void offer(Auction known, Bid bid) {
            if (validBid(known, bid)) {
                Long current = best.value();
                if (current == null || bid.price() > current) {
                    best.update(bid.price());
                }
            }
        }

        @Override
        public void onTimer(
                long timestamp,
                OnTimerContext<Long, ClosingPrice> context,
                Collector<ClosingPrice> out) {
            Auction known = auction.value();
            if (known == null) {
                List<Bid> waiting = early.get();
                List<Bid> keep = waiting.stream().filter(b -> b.dateTime() > timestamp).toList();
                if (keep.isEmpty()) {
                    early.clear();
                } else if (keep.size() < waiting.size()) {
                    early.update(keep);
                }
            } else if (timestamp == known.expires()) {
                Long price = best.value();
                if (price != null) {
                    out.collect(new ClosingPrice(known.id(), known.category(), price));
                }
                auction.clear();
                best.clear();
            }
        }
    }

    /** q5: bids per auction in sliding windows, then the hottest auction of each window. */
    private static DataStream<HotItem> q5(DataStream<Bid> bids, NexmarkConfig config) {
        return bids.keyBy(Bid::auction)
                .window(
                        WindowAssigner.sliding(
                                Duration.ofMillis(config.windowMs()),
                                Duration.ofMillis(config.slideMs())))
                .<Long, Long, HotItem>aggregate(
                        "q5-count",
                        new Count<Bid>(),
                        Codecs.LONG,
                        (auction, context, counts, out) ->
                                out.collect(
                                        new HotItem(
                                                context.window().end(),
                                                auction,
                                                counts.iterator().next())))
                .keyBy(HotItem::windowEnd)
                .window(WindowAssigner.tumbling(Duration.ofMillis(config.slideMs())))
                .reduce("q5-hottest", HotItem::hotter, Codecs.record(HotItem.class));
    }

    /** q7: the highest bid per auction and window, then the highest of each window. */
    private static DataStream<HighestBid> q7(DataStream<Bid> bids, NexmarkConfig config) {
        WindowAssigner windows = WindowAssigner.tumbling(Duration.ofMillis(config.windowMs()));
        return bids.keyBy(Bid::auction)
                .window(windows)
                .<HighestBid>reduce(
                        "q7-per-auction",
                        Results::higherBid,
                        Codecs.record(Bid.class),
                        (auction, context, highest, out) ->
                                out.collect(
                                        HighestBid.of(
                                                context.window().end(), highest.iterator().next())))
                .keyBy(HighestBid::windowEnd)
                .window(windows)
                .reduce("q7-highest", HighestBid::higher, Codecs.record(HighestBid.class));
    }

    /** q8: people who opened an auction in the tumbling window they registered in. */
    private static DataStream<NewUser> q8(DataStream<Event> events, NexmarkConfig config) {
        DataStream<Person> persons =
                events.filter(event -> event.person() != null).map(Event::person);
        DataStream<Auction> auctions =
                events.filter(event -> event.auction() != null).map(Event::auction);
        return persons.keyBy(Person::id)
                .windowJoin(
                        auctions.keyBy(Auction::seller),
                        WindowAssigner.tumbling(Duration.ofMillis(config.windowMs())))
                .apply(
                        "q8-join",
                        (id, window, person, auction, out) ->
                                out.collect(new NewUser(id, person.name(), window.start())),
                        Codecs.record(Person.class),
                        Codecs.record(Auction.class));
    }

    /** q11: each bidder's sessions of bids and how many bids each holds. */
    private static DataStream<Session> q11(DataStream<Bid> bids, NexmarkConfig config) {
        return bids.keyBy(Bid::bidder)
                .window(WindowAssigner.session(Duration.ofMillis(config.sessionGapMs())))
                .<Long, Long, Session>aggregate(
                        "q11-sessions",
                        new Count<Bid>(),
                        Codecs.LONG,
                        (bidder, context, counts, out) ->
                                out.collect(
                                        new Session(
                                                bidder,
                                                counts.iterator().next(),
                                                context.window().start(),
                                                context.window().end())));
    }

    /** Counts a window's records; mergeable, for sessions. */
    static final class Count<T> implements AggregateFunction<T, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(T value, Long accumulator) {
            return accumulator + 1;
        }

        @Override
        public Long getResult(Long accumulator) {
            return accumulator;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }
}
