package dev.sluice.core.provider;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
        return ProviderRequest.of("POST", URI.create(url), headers(headerNameValues),
                body == null ? null : body.getBytes(StandardCharsets.UTF_8));
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
}
