package dev.sluice.core.provider.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.provider.Headers;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApiKeyIdsTest {

    @Test
    void idIsKPrefixAndSixHexOfSha256() {
        // sha256("sk-test") = 0bd1f8b5...: printf 'sk-test' | sha256sum
        assertThat(ApiKeyIds.of("sk-test"))
                .isEqualTo("k_" + sha256Hex("sk-test").substring(0, 6))
                .hasSize(8);
        assertThat(ApiKeyIds.of("sk-test")).doesNotContain("sk-test");
        assertThat(ApiKeyIds.of(" sk-test ")).isEqualTo(ApiKeyIds.of("sk-test"));
        assertThat(ApiKeyIds.of("sk-other")).isNotEqualTo(ApiKeyIds.of("sk-test"));
        assertThat(ApiKeyIds.of(null)).isNull();
        assertThat(ApiKeyIds.of("  ")).isNull();
    }

    @Test
    void readsBearerAndKeyHeaders() {
        Headers h = Headers.of(Map.of("Authorization", List.of("Bearer sk-test"), "api-key", List.of("azkey")));
        assertThat(ApiKeyIds.fromBearer(h)).isEqualTo(ApiKeyIds.of("sk-test"));
        assertThat(ApiKeyIds.fromHeader(h, "API-KEY")).isEqualTo(ApiKeyIds.of("azkey"));
        assertThat(ApiKeyIds.fromBearer(Headers.of(Map.of("authorization", List.of("bearer sk-test")))))
                .isEqualTo(ApiKeyIds.of("sk-test"));
        assertThat(ApiKeyIds.fromBearer(Headers.of(Map.of("authorization", List.of("Basic dXNlcg==")))))
                .isNull();
        assertThat(ApiKeyIds.fromBearer(Headers.of(Map.of("authorization", List.of("Bearer ")))))
                .isNull();
        assertThat(ApiKeyIds.fromBearer(Headers.empty())).isNull();
        assertThat(ApiKeyIds.fromBearer(null)).isNull();
    }

    @Test
    void idsStayRightWhenTheRememberedKeysOutnumberTheSlots() {
        // 1,000 keys through 64 slots, twice: every answer, first or remembered, is the key's own
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 1_000; i++) {
                String key = "sk-many-" + i;
                String expected = "k_" + sha256Hex(key).substring(0, 6);
                assertThat(ApiKeyIds.of(key)).isEqualTo(expected);
                assertThat(ApiKeyIds.of(new String(key))).isEqualTo(expected);
                Headers h = Headers.of(Map.of("Authorization", List.of("Bearer " + key)));
                assertThat(ApiKeyIds.fromBearer(h)).isEqualTo(expected);
            }
        }
        // a raw key that itself starts with "Bearer " is hashed whole, whatever the bearer table holds
        Headers bearer = Headers.of(Map.of("Authorization", List.of("Bearer sk-x")));
        assertThat(ApiKeyIds.fromBearer(bearer)).isEqualTo(ApiKeyIds.of("sk-x"));
        assertThat(ApiKeyIds.of("Bearer sk-x"))
                .isEqualTo("k_" + sha256Hex("Bearer sk-x").substring(0, 6));
    }

    static String sha256Hex(String s) {
        try {
            byte[] d = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder();
            for (byte b : d) {
                hex.append(String.format("%02x", b));
            }
            return hex.toString();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
