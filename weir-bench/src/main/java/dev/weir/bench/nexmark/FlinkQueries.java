package dev.weir.bench.nexmark;

import dev.weir.bench.nexmark.Results.AuctionPrice;
import dev.weir.bench.nexmark.Results.CategoryAverage;
import dev.weir.bench.nexmark.Results.ClosingPrice;
import dev.weir.bench.nexmark.Results.HighestBid;
import dev.weir.bench.nexmark.Results.HotItem;
import dev.weir.bench.nexmark.Results.NewUser;
import dev.weir.bench.nexmark.Results.SellerAuction;
import dev.weir.bench.nexmark.Results.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * The Nexmark queries as idiomatic Flink 2.3 DataStream jobs, the peers of {@link WeirQueries}: the
 * same generator as a FLIP-27 source with the same watermark strategy, then per query Flink's
 * windows, window joins, {@code connect} with keyed co-process functions, keyed state and timers.
 */
public final class FlinkQueries {
    private FlinkQueries() {}

    /** Adds the source and {@code query} to {@code env}; returns the query's results. */
    public static DataStream<?> build(
            String query, StreamExecutionEnvironment env, NexmarkConfig config, int parallelism) {
        DataStream<Event> events =
                env.fromSource(
                        new FlinkNexmarkSource(config, parallelism),
                        WatermarkStrategy.<Event>forBoundedOutOfOrderness(
                                        Duration.ofMillis(config.maxOutOfOrdernessMs()))
                                .withTimestampAssigner((event, previous) -> event.timestamp()),
                        "nexmark",
                        TypeInformation.of(Event.class));
        return switch (query) {
            case "q0" -> events;
            case "q1" ->
                    bids(events)
                            .map(bid -> bid.withPrice(WeirQueries.dollarsToEuros(bid.price())))
                            .returns(Bid.class);
            case "q2" ->
                    bids(events)
                            .filter(bid -> bid.auction() % WeirQueries.Q2_AUCTION_SKIP == 0)
                            .map(bid -> new AuctionPrice(bid.auction(), bid.price()))
                            .returns(AuctionPrice.class);
            case "q3" -> q3(events);
            case "q4" -> q4(events);
            case "q5" -> q5(bids(events), config);
            case "q7" -> q7(bids(events), config);
            case "q8" -> q8(events, config);
            case "q11" -> q11(bids(events), config);
            default -> throw WeirQueries.unknown(query);
        };
    }

    private static DataStream<Bid> bids(DataStream<Event> events) {
        return events.filter(event -> event.bid() != null).map(Event::bid).returns(Bid.class);
    }

    private static DataStream<Person> persons(DataStream<Event> events) {
        return events.filter(event -> event.person() != null)
                .map(Event::person)
                .returns(Person.class);
    }

    private static DataStream<Auction> auctions(DataStream<Event> events) {
        return events.filter(event -> event.auction() != null)
                .map(Event::auction)
                .returns(Auction.class);
    }

    /** q3: persons connected with auctions, keyed by seller, joined incrementally. */
    private static DataStream<SellerAuction> q3(DataStream<Event> events) {
        DataStream<Person> sellers =
                persons(events).filter(person -> WeirQueries.Q3_STATES.contains(person.state()));
        DataStream<Auction> inCategory =
                auctions(events).filter(auction -> auction.category() == WeirQueries.Q3_CATEGORY);
        return sellers.connect(inCategory)
                .keyBy(Person::id, Auction::seller, Types.LONG)
                .process(new IncrementalJoin())
                .returns(SellerAuction.class);
    }

    /** q3's join: the person in ValueState, auctions waiting for their seller in ListState. */
    static final class IncrementalJoin
            extends KeyedCoProcessFunction<Long, Person, Auction, SellerAuction> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Person> person;
        private transient ListState<Auction> waiting;

        @Override
        public void open(OpenContext context) {
            person =
                    getRuntimeContext()
                            .getState(
                                    new ValueStateDescriptor<>(
                                            "person", TypeInformation.of(Person.class)));
            waiting =
                    getRuntimeContext()
                            .getListState(
                                    new ListStateDescriptor<>(
                                            "waiting", TypeInformation.of(Auction.class)));
        }

        @Override
        public void processElement1(Person seller, Context context, Collector<SellerAuction> out)
                throws Exception {
            person.update(seller);
            for (Auction auction : waiting.get()) {
                out.collect(WeirQueries.join(seller, auction));
            }
            waiting.clear();
        }

        @Override
        public void processElement2(Auction auction, Context context, Collector<SellerAuction> out)
                throws Exception {
            Person seller = person.value();
            if (seller != null) {
                out.collect(WeirQueries.join(seller, auction));
            } else {
                waiting.add(auction);
            }
        }
    }

    /** q4: auctions connected with their bids, closed by timers, then averaged per category. */
    private static DataStream<CategoryAverage> q4(DataStream<Event> events) {
        return auctions(events)
                .connect(bids(events))
                .keyBy(Auction::id, Bid::auction, Types.LONG)
                .process(new WinningBids())
                .returns(ClosingPrice.class)
                .keyBy(ClosingPrice::category, Types.LONG)
                .process(new RunningAverage())
                .returns(CategoryAverage.class);
    }

    /** q4's first stage: the same state and timers as {@link WeirQueries.WinningBids}. */
    static final class WinningBids
            extends KeyedCoProcessFunction<Long, Auction, Bid, ClosingPrice> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Auction> auction;
        private transient ValueState<Long> best;
        private transient ListState<Bid> early;

        @Override
        public void open(OpenContext context) {
            auction =
                    getRuntimeContext()
                            .getState(
                                    new ValueStateDescriptor<>(
                                            "auction", TypeInformation.of(Auction.class)));
            best = getRuntimeContext().getState(new ValueStateDescriptor<>("best", Types.LONG));
            early =
                    getRuntimeContext()
                            .getListState(
                                    new ListStateDescriptor<>(
                                            "early", TypeInformation.of(Bid.class)));
        }

        @Override
        public void processElement1(Auction opened, Context context, Collector<ClosingPrice> out)
                throws Exception {
            auction.update(opened);
            context.timerService().registerEventTimeTimer(opened.expires());
            for (Bid bid : early.get()) {
                offer(opened, bid);
            }
            early.clear();
        }

        @Override
        public void processElement2(Bid bid, Context context, Collector<ClosingPrice> out)
                throws Exception {
            Auction known = auction.value();
            if (known != null) {
                offer(known, bid);
            } else {
                early.add(bid);
                context.timerService().registerEventTimeTimer(bid.dateTime());
            }
        }

        private void offer(Auction known, Bid bid) throws Exception {
            if (WeirQueries.validBid(known, bid)) {
                Long current = best.value();
                if (current == null || bid.price() > current) {
                    best.update(bid.price());
                }
            }
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext context, Collector<ClosingPrice> out)
                throws Exception {
            Auction known = auction.value();
            if (known == null) {
                List<Bid> keep = new ArrayList<>();
                boolean dropped = false;
                for (Bid bid : early.get()) {
                    if (bid.dateTime() > timestamp) {
                        keep.add(bid);
                    } else {
                        dropped = true;
                    }
                }
                if (keep.isEmpty()) {
                    early.clear();
                } else if (dropped) {
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

    /** q4's second stage: the running average per category in ValueState. */
    static final class RunningAverage
            extends KeyedProcessFunction<Long, ClosingPrice, CategoryAverage> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<CategoryAverage> average;

        @Override
        public void open(OpenContext context) {
            average =
                    getRuntimeContext()
                            .getState(
                                    new ValueStateDescriptor<>(
                                            "average", TypeInformation.of(CategoryAverage.class)));
        }

        @Override
        public void processElement(
                ClosingPrice closing, Context context, Collector<CategoryAverage> out)
                throws Exception {
            CategoryAverage current = average.value();
            CategoryAverage next =
                    (current == null ? new CategoryAverage(closing.category(), 0, 0, 0) : current)
                            .plus(closing.price());
            average.update(next);
            out.collect(next);
        }
    }

    /** q5: sliding-window counts per auction, then the hottest auction of each window. */
    private static DataStream<HotItem> q5(DataStream<Bid> bids, NexmarkConfig config) {
        return bids.keyBy(Bid::auction, Types.LONG)
                .window(
                        SlidingEventTimeWindows.of(
                                Duration.ofMillis(config.windowMs()),
                                Duration.ofMillis(config.slideMs())))
                .aggregate(new Count<Bid>(), new ToHotItem())
                .keyBy(HotItem::windowEnd, Types.LONG)
                .window(TumblingEventTimeWindows.of(Duration.ofMillis(config.slideMs())))
                .reduce(HotItem::hotter)
                .returns(HotItem.class);
    }

    /** The count of an auction's window as a {@link HotItem}. */
    static final class ToHotItem extends ProcessWindowFunction<Long, HotItem, Long, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(
                Long auction, Context context, Iterable<Long> counts, Collector<HotItem> out) {
            out.collect(new HotItem(context.window().getEnd(), auction, counts.iterator().next()));
        }
    }

    /** q7: the highest bid per auction and window, then the highest of each window. */
    private static DataStream<HighestBid> q7(DataStream<Bid> bids, NexmarkConfig config) {
        Duration size = Duration.ofMillis(config.windowMs());
        return bids.keyBy(Bid::auction, Types.LONG)
                .window(TumblingEventTimeWindows.of(size))
                .reduce(Results::higherBid, new ToHighestBid())
                .keyBy(HighestBid::windowEnd, Types.LONG)
                .window(TumblingEventTimeWindows.of(size))
                .reduce(HighestBid::higher)
                .returns(HighestBid.class);
    }

    /** The highest bid of an auction's window as a {@link HighestBid}. */
    static final class ToHighestBid
            extends ProcessWindowFunction<Bid, HighestBid, Long, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(
                Long auction, Context context, Iterable<Bid> highest, Collector<HighestBid> out) {
            out.collect(HighestBid.of(context.window().getEnd(), highest.iterator().next()));
        }
    }

    /** q8: persons joined with auctions by seller in tumbling windows. */
    private static DataStream<NewUser> q8(DataStream<Event> events, NexmarkConfig config) {
        long size = config.windowMs();
        return persons(events)
                .join(auctions(events))
                .where(Person::id, Types.LONG)
                .equalTo(Auction::seller)
                .window(TumblingEventTimeWindows.of(Duration.ofMillis(size)))
                .apply(
                        (person, auction) ->
                                new NewUser(
                                        person.id(),
                                        person.name(),
                                        TimeWindow.getWindowStartWithOffset(
                                                person.dateTime(), 0, size)),
                        TypeInformation.of(NewUser.class));
    }

    /** q11: session windows per bidder, counted. */
    private static DataStream<Session> q11(DataStream<Bid> bids, NexmarkConfig config) {
        return bids.keyBy(Bid::bidder, Types.LONG)
                .window(EventTimeSessionWindows.withGap(Duration.ofMillis(config.sessionGapMs())))
                .aggregate(new Count<Bid>(), new ToSession())
                .returns(Session.class);
    }

    /** A bidder's session count as a {@link Session}. */
    static final class ToSession extends ProcessWindowFunction<Long, Session, Long, TimeWindow> {
        private static final long serialVersionUID = 1L;

        @Override
        public void process(
                Long bidder, Context context, Iterable<Long> counts, Collector<Session> out) {
            TimeWindow window = context.window();
            out.collect(
                    new Session(
                            bidder, counts.iterator().next(), window.getStart(), window.getEnd()));
        }
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
