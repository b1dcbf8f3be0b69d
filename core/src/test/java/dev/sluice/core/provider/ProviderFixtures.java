package dev.sluice.core.provider;

import dev.sluice.core.Usage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Small builders shared by adapter tests. */
public final class ProviderFixtures {

    /** A predictable estimator: 4 characters a token, 3 tokens of framing a part. */
    public static final TokenEstimator ESTIMATOR = new TokenEstimator() {
        @Override
        public long estimateInputTokens(String model, long characters, int parts) {
            return Math.max(1, (characters + 3) / 4 + 3L * parts);
        }

        @Override
        public long tokensForText(String model, long characters) {
            return (characters + 3) / 4;
        }
    };

    private ProviderFixtures() {}

    public static Headers headers(String... nameValues) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            map.put(nameValues[i], List.of(nameValues[i + 1]));
        }
        return Headers.of(map);
    }

    public static ProviderRequest post(String url, String body, String... headerNameValues) {
        return ProviderRequest.of(
                "POST", url, headers(headerNameValues), body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Feeds a body to a parser in pieces cut at the given offsets, then finishes it. */
    public static UsageParser feed(UsageParser parser, byte[] body, int... cuts) {
        int from = 0;
        for (int cut : cuts) {
            parser.accept(body, from, cut - from);
            from = cut;
        }
        parser.accept(body, from, body.length - from);
        parser.finish();
        return parser;
    }

    /** A test resource's bytes, e.g. {@code "/anthropic/stream.sse"}. */
    public static byte[] resource(String path) {
        try (InputStream in = ProviderFixtures.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource " + path);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The usage a fresh parser reads from the whole body, after checking that every split of it in
     * two, and a feed of one byte at a time, read the same (and the same stream error, if any).
     */
    public static Usage sameUsageAtEveryCut(Supplier<UsageParser> parsers, byte[] body) {
        UsageParser whole = feed(parsers.get(), body);
        String expected = whole.usage() + " " + whole.streamError();
        for (int cut = 0; cut <= body.length; cut++) {
            UsageParser p = feed(parsers.get(), body, cut);
            org.assertj.core.api.Assertions.assertThat(p.usage() + " " + p.streamError())
                    .as("cut at %d", cut)
                    .isEqualTo(expected);
        }
        UsageParser byteByByte = parsers.get();
        for (int i = 0; i < body.length; i++) {
            byteByByte.accept(body, i, 1);
        }
        byteByByte.finish();
        org.assertj.core.api.Assertions.assertThat(byteByByte.usage() + " " + byteByByte.streamError())
                .as("byte by byte")
                .isEqualTo(expected);
        return whole.usage();
    }
}
