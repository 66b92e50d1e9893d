package dev.weir.source;

import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.source.Source;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

class LogSourceConformanceTest extends ReplayableSourceConformance {
    @Override
    protected Source<String> createSource(List<String> records, int splits) {
        Path dir = temp.resolve("log-" + System.nanoTime());
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults().withSegmentBytes(8192))) {
            log.createTopic("lines", splits);
            List<List<byte[]>> parts = new ArrayList<>();
            for (int p = 0; p < splits; p++) {
                parts.add(new ArrayList<>());
            }
            for (int i = 0; i < records.size(); i++) {
                parts.get(i % splits).add(Codecs.STRING.toBytes(records.get(i)));
            }
            for (int p = 0; p < splits; p++) {
                for (int from = 0; from < parts.get(p).size(); from += 100) {
                    log.append(
                            "lines",
                            p,
                            parts.get(p).subList(from, Math.min(from + 100, parts.get(p).size())));
                }
            }
        }
        return Sources.log(dir, "lines", Codecs.STRING);
    }

    @Override
    protected Source<String> createSourceWithSplits(List<List<String>> splits) {
        Path dir = temp.resolve("log-" + System.nanoTime());
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults().withSegmentBytes(8192))) {
            log.createTopic("lines", splits.size());
            for (int p = 0; p < splits.size(); p++) {
                List<byte[]> records = new ArrayList<>();
                for (String record : splits.get(p)) {
                    records.add(Codecs.STRING.toBytes(record));
                }
                for (int from = 0; from < records.size(); from += 100) {
                    log.append(
                            "lines",
                            p,
                            records.subList(from, Math.min(from + 100, records.size())));
                }
            }
        }
        return Sources.log(dir, "lines", Codecs.STRING);
    }
}
