package dev.weir.internal.connectors;

import dev.weir.api.Guarantee;
import dev.weir.api.function.Collector;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Lines read from a TCP connection. Not replayable: what the peer sent is gone once read, so
 * records in flight at a failure are lost and a pipeline using this source is at-most-once end to
 * end. Reads without blocking (a non-blocking channel polled by the task), one split.
 */
public final class SocketSource implements Source<String> {
    private final String host;
    private final int port;

    public SocketSource(String host, int port) {
        this.host = host;
        this.port = port;
    }

    @Override
    public String kind() {
        return "socket";
    }

    @Override
    public boolean isReplayable() {
        return false;
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.AT_MOST_ONCE;
    }

    @Override
    public List<String> splits(int parallelism) {
        return List.of("socket-" + host + ":" + port);
    }

    @Override
    public SourceReader<String> openReader(String split, SourceContext context) throws IOException {
        SocketChannel channel;
        try {
            channel = SocketChannel.open(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new IOException(
                    "socket source cannot connect to "
                            + host
                            + ":"
                            + port
                            + " ("
                            + e.getMessage()
                            + "); start the server first or fix the address",
                    e);
        }
        channel.configureBlocking(false);
        return new SourceReader<>() {
            private final ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();
            private long lines;
            private boolean closed;

            @Override
            public ReadStatus poll(Collector<String> out, int maxRecords) throws IOException {
                int emitted = 0;
                while (emitted < maxRecords) {
                    if (buffer.position() == 0 || !buffer.hasRemaining()) {
                        buffer.clear();
                        int read = closed ? -1 : channel.read(buffer);
                        if (read < 0) {
                            closed = true;
                            if (line.size() > 0) {
                                emit(out);
                            }
                            return ReadStatus.END_OF_INPUT;
                        }
                        buffer.flip();
                        if (read == 0) {
                            buffer.position(buffer.limit());
                            return emitted > 0
                                    ? ReadStatus.MORE_AVAILABLE
                                    : ReadStatus.NOTHING_AVAILABLE;
                        }
                    }
                    while (buffer.hasRemaining() && emitted < maxRecords) {
                        byte b = buffer.get();
                        if (b == '\n') {
                            emit(out);
                            emitted++;
                        } else if (b != '\r') {
                            line.write(b);
                        }
                    }
                }
                return ReadStatus.MORE_AVAILABLE;
            }

            private void emit(Collector<String> out) {
                out.collect(new String(line.toByteArray(), StandardCharsets.UTF_8));
                line.reset();
                lines++;
            }

            @Override
            public long position() {
                return lines;
            }

            @Override
            public void seek(long position) {
                throw new UnsupportedOperationException("a socket cannot rewind");
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }
}
