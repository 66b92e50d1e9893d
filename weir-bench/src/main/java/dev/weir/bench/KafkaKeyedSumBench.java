package dev.weir.bench;

import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.kafka.KafkaSink;
import dev.weir.kafka.KafkaSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The keyed running sum Kafka → Kafka, exactly-once, on one of three engines: Weir ({@code
 * KafkaSource} → keyed state → {@code KafkaSink}), Kafka Streams ({@code exactly_once_v2}, a
 * processor with an in-memory key-value store and its changelog, record cache off so that every
 * update is written, as in the other engines) and Flink 2.3 with its Kafka connector ({@code
 * DeliveryGuarantee.EXACTLY_ONCE}). The same commit cadence for all: 1 s checkpoints (Weir, Flink)
 * and {@code commit.interval.ms} (Kafka Streams).
 *
 * <p>Throughput mode: the input topic holds N records already (produced before, untimed); the run
 * is timed from the engine running (its start-up reported apart) to the moment a {@code
 * read_committed} consumer has all N output records, whose final sums per key are then checked.
 * Latency mode ({@code --rate}): the input topic is empty; a producer in this JVM writes N records
 * at {@code --rate} per second, each stamped with its send time, and the consumer measures the time
 * from that stamp to its output record's arrival (records of the first {@code --warmup-ms} do not
 * count).
 *
 * <p>{@code --engine clients} is no engine: the same job on bare Kafka clients, without durable
 * state, as the ceiling that the broker and clients set on the machine.
 *
 * <p>Prints one line: {@code engine=<weir|kstreams|flink|clients> job=kafka-keyed-sum
 * mode=<eo|none> N=… K=… P=… seconds=… records_per_s=… startup_ms=… [latency_p50_ms=…
 * latency_p99_ms=…]}.
 */
@Command(
        name = "kafka-keyed-sum",
        description =
                "The keyed running sum Kafka to Kafka, exactly-once, on Weir, Kafka Streams or Flink.")
public final class KafkaKeyedSumBench implements Callable<Integer> {
    @Option(
            names = "--engine",
            required = true,
            description =
                    "weir, kstreams or flink; or clients: the job's least work on bare Kafka"
                            + " clients, no engine and no durable state (the broker's ceiling).")
    String engine;

    @Option(names = "--bootstrap", required = true, description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = "--input", required = true, description = "Input topic.")
    String input;

    @Option(
            names = "--output",
            required = true,
            description = "Output topic (created here, with as many partitions as the input).")
    String output;

    @Option(
            names = "--partitions",
            description = "Partitions of input and output (default ${DEFAULT-VALUE}).")
    int partitions = 4;

    @Option(names = "--n", description = "Records (default ${DEFAULT-VALUE}).")
    long n = 2_000_000;

    @Option(names = "--k", description = "Distinct keys (default ${DEFAULT-VALUE}).")
    long k = 100_000;

    @Option(names = "--p", description = "Parallelism / stream threads (default ${DEFAULT-VALUE}).")
    int p = 2;

    @Option(
            names = "--interval-ms",
            description = "Checkpoint / commit interval (default ${DEFAULT-VALUE}).")
    long intervalMs = 1000;

    @Option(
            names = "--rate",
            description =
                    "Latency mode: produce the input at this many records/s during the run (0 = throughput mode).")
    long rate = 0;

    @Option(
            names = "--warmup-ms",
            description =
                    "Latency mode: records of the first ms not measured (default ${DEFAULT-VALUE}).")
    long warmupMs = 5000;

    @Option(
            names = "--weir-producer",
            description = "A producer property of Weir's sink, key=value (tuning experiments).")
    java.util.List<String> weirProducer = java.util.List.of();

    @Option(
            names = "--weir-consumer",
            description = "A consumer property of Weir's source, key=value (tuning experiments).")
    java.util.List<String> weirConsumer = java.util.List.of();

    @Option(
            names = "--produce-input",
            description = "Create the input topic and produce N records into it first (untimed).")
    boolean produceInput;

    @Override
    public Integer call() throws Exception {
        if (k < 1 || k > 50_000_000) {
            throw new IllegalArgumentException("--k must be within 1..50,000,000");
        }
        if (produceInput) {
            KafkaBenchSupport.createTopic(bootstrap, input, partitions);
            KafkaBenchSupport.produceAll(bootstrap, input, n, k);
        }
        KafkaBenchSupport.createTopic(bootstrap, output, partitions);
        Path dir = Files.createTempDirectory("kafka-bench-");
        long startedAt = System.nanoTime();
        AutoCloseable running =
                switch (engine) {
                    case "weir" -> startWeir(dir);
                    case "kstreams" -> startKafkaStreams(dir);
                    case "flink" -> startFlink(dir);
                    case "clients" -> startClients();
                    default ->
                            throw new IllegalArgumentException(
                                    "unknown --engine "
                                            + engine
                                            + "; use weir, kstreams, flink or clients");
                };
        long runningAt = System.nanoTime();
        long measureFrom = System.currentTimeMillis() + (rate > 0 ? warmupMs : 0);
        Thread producer =
                rate > 0 ? KafkaBenchSupport.producePaced(bootstrap, input, n, k, rate) : null;
        long doneAt;
        KafkaBenchSupport.MeasuringConsumer consumer =
                new KafkaBenchSupport.MeasuringConsumer(bootstrap, output, n, k, measureFrom);
        try {
            doneAt = consumer.awaitAll(Duration.ofMinutes(20));
            consumer.checkSums(n, k);
        } finally {
            consumer.close();
            running.close();
            if (producer != null) {
                producer.join();
            }
        }
        double seconds = (doneAt - runningAt) / 1e9;
        StringBuilder line =
                new StringBuilder(
                        String.format(
                                Locale.ROOT,
                                "engine=%s job=kafka-keyed-sum mode=%s N=%d K=%d P=%d"
                                        + " seconds=%.3f records_per_s=%.0f startup_ms=%d",
                                engine,
                                engine.equals("clients") ? "none" : "eo",
                                n,
                                k,
                                p,
                                seconds,
                                n / seconds,
                                (runningAt - startedAt) / 1_000_000));
        if (rate > 0) {
            line.append(
                    String.format(
                            Locale.ROOT,
                            " rate=%d latency_p50_ms=%d latency_p99_ms=%d",
                            rate,
                            consumer.latencyPercentile(50),
                            consumer.latencyPercentile(99)));
        }
        if (!checkpoints.isEmpty()) {
            line.append(checkpointFields(checkpoints));
        }
        System.out.println(line);
        return 0;
    }

    // ---------------------------------------------------------------- Weir

    /**
     * Weir's checkpoints: count, duration p50/p99 (trigger to durable metadata), and p50/p99 over
     * checkpoints of the slowest task's synchronous part (state copy, sink pre-commit) and
     * asynchronous part (state serialised, written and synced), warm-up included.
     */
    static String checkpointFields(java.util.List<dev.weir.api.checkpoint.CheckpointStats> all) {
        long[] durations =
                all.stream()
                        .mapToLong(dev.weir.api.checkpoint.CheckpointStats::durationMillis)
                        .sorted()
                        .toArray();
        long[] sync =
                KeyedSumBench.slowestTask(
                        all, dev.weir.api.checkpoint.CheckpointStats.TaskStats::syncNanos);
        long[] async =
                KeyedSumBench.slowestTask(
                        all, dev.weir.api.checkpoint.CheckpointStats.TaskStats::asyncNanos);
        return String.format(
                Locale.ROOT,
                " checkpoints=%d ckpt_p50_ms=%d ckpt_p99_ms=%d sync_p50_ms=%.1f sync_p99_ms=%.1f"
                        + " async_p50_ms=%.1f async_p99_ms=%.1f",
                durations.length,
                KeyedSumBench.percentile(durations, 50),
                KeyedSumBench.percentile(durations, 99),
                KeyedSumBench.percentile(sync, 50) / 1e6,
                KeyedSumBench.percentile(sync, 99) / 1e6,
                KeyedSumBench.percentile(async, 50) / 1e6,
                KeyedSumBench.percentile(async, 99) / 1e6);
    }

    /** An input record: its key, its number and its timestamp. */
    record Num(long key, long value, long timestamp) {}

    /** An output record. */
    record Sum(long key, long sum, long timestamp) {}

    /** Weir's completed checkpoints of this run. */
    private final java.util.List<dev.weir.api.checkpoint.CheckpointStats> checkpoints =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    private AutoCloseable startWeir(Path dir) {
        Pipeline pipeline =
                Pipeline.create("kafka-keyed-sum")
                        .parallelism(p)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(intervalMs), dir.resolve("chk")))
                        .listener(
                                new dev.weir.api.JobListener() {
                                    @Override
                                    public void onCheckpointComplete(
                                            dev.weir.api.checkpoint.CheckpointStats stats) {
                                        checkpoints.add(stats);
                                    }
                                });
        KafkaSource<Num> source =
                KafkaSource.<Num>topics(
                                bootstrap,
                                record ->
                                        new Num(
                                                KafkaBenchSupport.longOf(record.key()),
                                                KafkaBenchSupport.longOf(record.value()),
                                                record.timestamp()),
                                input)
                        .splitCount(partitions);
        if (rate == 0) {
            source = source.bounded();
        }
        for (String property : weirConsumer) {
            source = source.property(property.split("=", 2)[0], property.split("=", 2)[1]);
        }
        KafkaSink<Sum> sink =
                KafkaSink.<Sum>to(
                                bootstrap,
                                output,
                                (sum, topic) ->
                                        new ProducerRecord<>(
                                                topic,
                                                KafkaBenchSupport.longBytes(sum.key()),
                                                KafkaBenchSupport.outputValue(
                                                        sum.key(), sum.sum(), sum.timestamp())))
                        .transactionalIdPrefix("weir-bench-" + output);
        for (String property : weirProducer) {
            sink = sink.property(property.split("=", 2)[0], property.split("=", 2)[1]);
        }
        pipeline.source("in", source)
                .keyBy(Num::key)
                .<Long, Sum>process(
                        "sum",
                        Codecs.LONG,
                        (key, num, state, out) -> {
                            Long current = state.value();
                            long next = (current == null ? 0 : current) + num.value();
                            state.update(next);
                            out.collect(new Sum(num.key(), next, num.timestamp()));
                        })
                .sink("out", sink);
        JobHandle job = pipeline.start();
        return () -> {
            if (rate == 0) {
                job.await();
            } else {
                job.cancel();
                try {
                    job.await();
                } catch (Exception e) {
                    // cancelled
                }
            }
        };
    }

    // ---------------------------------------------------------------- Kafka Streams

    private AutoCloseable startKafkaStreams(Path dir) throws InterruptedException {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "kstreams-bench-" + output);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(intervalMs));
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.toString(p));
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        props.put(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString());
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(
                Stores.keyValueStoreBuilder(
                        Stores.inMemoryKeyValueStore("sums"), Serdes.Long(), Serdes.Long()));
        builder.stream(input, Consumed.with(Serdes.Long(), Serdes.Long()))
                .process(RunningSumProcessor::new, "sums")
                .to(output, Produced.with(Serdes.Long(), Serdes.ByteArray()));
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        streams.setStateListener(
                (now, before) -> {
                    if (now == KafkaStreams.State.RUNNING) {
                        running.countDown();
                    }
                });
        streams.start();
        running.await();
        return () -> streams.close(Duration.ofSeconds(30));
    }

    /** The running sum per key in a key-value store; forwards every update. */
    static final class RunningSumProcessor implements Processor<Long, Long, Long, byte[]> {
        private ProcessorContext<Long, byte[]> context;
        private KeyValueStore<Long, Long> sums;

        @Override
        public void init(ProcessorContext<Long, byte[]> context) {
            this.context = context;
            this.sums = context.getStateStore("sums");
        }

        @Override
        public void process(Record<Long, Long> record) {
            Long current = sums.get(record.key());
            long next = (current == null ? 0 : current) + record.value();
            sums.put(record.key(), next);
            context.forward(
                    record.withValue(
                            KafkaBenchSupport.outputValue(record.key(), next, record.timestamp())));
        }
    }

    // ---------------------------------------------------------------- bare clients

    /**
     * Not an engine: the least work any engine must do for this job, on the Kafka clients alone. P
     * threads, each with a {@code read_committed} consumer assigned its share of the partitions, a
     * running sum per key in a map, and a transactional producer (Weir's sink's batching) whose
     * transaction is committed every interval. Nothing is made durable but the output, so a crash
     * would lose or repeat records: the figure is the ceiling the broker and clients set on this
     * machine, against which the engines' figures are read.
     */
    private AutoCloseable startClients() {
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < p; t++) {
            int thread = t;
            Thread worker =
                    new Thread(
                            () -> {
                                try {
                                    runClients(thread, stop);
                                } catch (Throwable e) {
                                    failures.add(e);
                                }
                            },
                            "clients-" + t);
            worker.start();
            threads.add(worker);
        }
        return () -> {
            if (rate > 0) {
                stop.set(true);
            }
            for (Thread worker : threads) {
                worker.join();
            }
            if (!failures.isEmpty()) {
                throw new IllegalStateException("a clients thread failed", failures.peek());
            }
        };
    }

    private void runClients(int thread, AtomicBoolean stop) {
        List<TopicPartition> mine = new ArrayList<>();
        for (int partition = thread; partition < partitions; partition += p) {
            mine.add(new TopicPartition(input, partition));
        }
        Properties consumerProps = new Properties();
        consumerProps.put("bootstrap.servers", bootstrap);
        consumerProps.put("isolation.level", "read_committed");
        consumerProps.put("enable.auto.commit", "false");
        consumerProps.put("auto.offset.reset", "earliest");
        consumerProps.put("max.poll.records", "2000");
        Properties producerProps = new Properties();
        producerProps.put("bootstrap.servers", bootstrap);
        producerProps.put("transactional.id", "clients-bench-" + output + "-" + thread);
        producerProps.put("batch.size", "1048576");
        producerProps.put("linger.ms", "20");
        var bytes = new ByteArraySerializer();
        var unbytes = new ByteArrayDeserializer();
        try (var consumer = new KafkaConsumer<>(consumerProps, unbytes, unbytes);
                var producer = new KafkaProducer<>(producerProps, bytes, bytes)) {
            consumer.assign(mine);
            consumer.seekToBeginning(mine);
            Map<TopicPartition, Long> end = rate == 0 ? consumer.endOffsets(mine) : Map.of();
            HashMap<Long, Long> sums = new HashMap<>();
            producer.initTransactions();
            producer.beginTransaction();
            long committedAt = System.nanoTime();
            while (!stop.get()) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(20))) {
                    long key = KafkaBenchSupport.longOf(record.key());
                    long next =
                            sums.merge(key, KafkaBenchSupport.longOf(record.value()), Long::sum);
                    producer.send(
                            new ProducerRecord<>(
                                    output,
                                    record.key(),
                                    KafkaBenchSupport.outputValue(key, next, record.timestamp())));
                }
                boolean atEnd = rate == 0;
                for (var partition : end.keySet()) {
                    atEnd &= consumer.position(partition) >= end.get(partition);
                }
                if (atEnd || System.nanoTime() - committedAt >= intervalMs * 1_000_000) {
                    producer.commitTransaction();
                    if (atEnd) {
                        return;
                    }
                    producer.beginTransaction();
                    committedAt = System.nanoTime();
                }
            }
        }
    }

    // ---------------------------------------------------------------- Flink

    private AutoCloseable startFlink(Path dir) throws Exception {
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.resolve("chk").toUri().toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(p, conf);
        env.getConfig().enableObjectReuse();
        env.enableCheckpointing(intervalMs, CheckpointingMode.EXACTLY_ONCE);
        var sourceBuilder =
                org.apache.flink.connector.kafka.source.KafkaSource
                        .<Tuple3<Long, Long, Long>>builder()
                        .setBootstrapServers(bootstrap)
                        .setTopics(input)
                        .setGroupId("flink-bench-" + output)
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setProperty("isolation.level", "read_committed")
                        .setDeserializer(new NumDeserializer());
        if (rate == 0) {
            sourceBuilder.setBounded(OffsetsInitializer.latest());
        }
        var sink =
                org.apache.flink.connector.kafka.sink.KafkaSink.<Tuple3<Long, Long, Long>>builder()
                        .setBootstrapServers(bootstrap)
                        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                        .setTransactionalIdPrefix("flink-bench-" + output)
                        .setProperty("transaction.timeout.ms", "900000")
                        .setRecordSerializer(new SumSerializer(output))
                        .build();
        env.fromSource(sourceBuilder.build(), WatermarkStrategy.noWatermarks(), "in")
                .keyBy(t -> t.f0, Types.LONG)
                .process(new FlinkRunningSum())
                .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG))
                .sinkTo(sink);
        JobClient client = env.executeAsync("kafka-keyed-sum");
        while (client.getJobStatus().get() != org.apache.flink.api.common.JobStatus.RUNNING) {
            Thread.sleep(10);
        }
        return () -> {
            if (rate == 0) {
                client.getJobExecutionResult().get();
            } else {
                client.cancel().get();
            }
        };
    }

    /** Input record to (key, number, timestamp). */
    static final class NumDeserializer
            implements KafkaRecordDeserializationSchema<Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(
                ConsumerRecord<byte[], byte[]> record, Collector<Tuple3<Long, Long, Long>> out) {
            out.collect(
                    Tuple3.of(
                            KafkaBenchSupport.longOf(record.key()),
                            KafkaBenchSupport.longOf(record.value()),
                            record.timestamp()));
        }

        @Override
        public TypeInformation<Tuple3<Long, Long, Long>> getProducedType() {
            return Types.TUPLE(Types.LONG, Types.LONG, Types.LONG);
        }
    }

    /** The running sum per key in {@code ValueState<Long>}; emits (key, sum, timestamp). */
    static final class FlinkRunningSum
            extends KeyedProcessFunction<Long, Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;
        private transient ValueState<Long> sum;

        @Override
        public void open(OpenContext context) {
            sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
        }

        @Override
        public void processElement(
                Tuple3<Long, Long, Long> in,
                Context context,
                Collector<Tuple3<Long, Long, Long>> out)
                throws Exception {
            Long current = sum.value();
            Long next = (current == null ? 0 : current) + in.f1;
            sum.update(next);
            out.collect(Tuple3.of(in.f0, next, in.f2));
        }
    }

    /** (key, sum, timestamp) to the output record, keyed. */
    static final class SumSerializer
            implements KafkaRecordSerializationSchema<Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;
        private final String topic;

        SumSerializer(String topic) {
            this.topic = topic;
        }

        @Override
        public ProducerRecord<byte[], byte[]> serialize(
                Tuple3<Long, Long, Long> sum, KafkaSinkContext context, Long timestamp) {
            return new ProducerRecord<>(
                    topic,
                    KafkaBenchSupport.longBytes(sum.f0),
                    KafkaBenchSupport.outputValue(sum.f0, sum.f1, sum.f2));
        }
    }
}
