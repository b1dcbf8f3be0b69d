package dev.sluice.simulator.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.fault.Faults;
import dev.sluice.simulator.ledger.Ledger;
import dev.sluice.simulator.protocol.Json;
import dev.sluice.simulator.protocol.ProviderRequest;
import dev.sluice.simulator.protocol.Reply;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The simulator's own HTTP endpoints under {@code /__sim/}, so a test in another JVM (or a user of
 * the CLI) can read the ledger, arm faults and reset state:
 *
 * <ul>
 *   <li>{@code GET /__sim/ledger[?exchanges=false]}: the ledger snapshot as JSON
 *   <li>{@code GET /__sim/limits}: the profile and the enforced limits
 *   <li>{@code GET /__sim/faults}: what is armed
 *   <li>{@code POST /__sim/faults}: {@code {"kind":"overload","count":3}}, {@code
 *       {"kind":"overload","durationMs":2000}}, {@code {"kind":"overload","always":true}}, {@code
 *       {"clear":true}} or {@code {"clear":"overload"}}, {@code {"slowFirstByteMs":1500}}
 *   <li>{@code POST /__sim/reset}: empties the ledger, refills every bucket, disarms faults
 * </ul>
 */
final class AdminEndpoint {
    static final String PREFIX = "/__sim/";

    private final String profile;
    private final List<Limit> limits;
    private final Ledger ledger;
    private final Faults faults;
    private final Runnable reset;

    AdminEndpoint(String profile, List<Limit> limits, Ledger ledger, Faults faults, Runnable reset) {
        this.profile = profile;
        this.limits = limits;
        this.ledger = ledger;
        this.faults = faults;
        this.reset = reset;
    }

    Reply handle(ProviderRequest request) {
        String what = request.path().substring(PREFIX.length());
        String method = request.method();
        try {
            if (what.equals("ledger") && method.equals("GET")) {
                boolean withExchanges = !"false".equals(request.query("exchanges"));
                return json(200, Ledger.toJson(ledger.snapshot(withExchanges)));
            }
            if (what.equals("limits") && method.equals("GET")) {
                return limits();
            }
            if (what.equals("faults") && method.equals("GET")) {
                return json(200, Json.text(Json.MAPPER.valueToTree(faults.armed())));
            }
            if (what.equals("faults") && method.equals("POST")) {
                arm(Json.parse(request.body()));
                return json(200, Json.text(Json.MAPPER.valueToTree(faults.armed())));
            }
            if (what.equals("reset") && method.equals("POST")) {
                reset.run();
                return json(200, "{\"reset\":true}");
            }
        } catch (IllegalArgumentException e) {
            ObjectNode error = Json.object();
            error.put("error", e.getMessage());
            return json(400, Json.text(error));
        }
        return json(404, "{\"error\":\"unknown admin endpoint: " + method + " " + request.path() + "\"}");
    }

    private void arm(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new IllegalArgumentException("expected a JSON object");
        }
        JsonNode clear = body.get("clear");
        if (clear != null) {
            if (clear.isTextual()) {
                faults.clear(FaultKind.parse(clear.asText()));
            } else if (clear.asBoolean()) {
                faults.clear();
            }
        }
        if (body.has("slowFirstByteMs")) {
            faults.slowFirstByteDelay(
                    Duration.ofMillis(body.get("slowFirstByteMs").asLong()));
        }
        if (!body.has("kind")) {
            return;
        }
        FaultKind kind = FaultKind.parse(body.get("kind").asText());
        if (body.path("always").asBoolean(false)) {
            faults.always(kind);
        } else if (body.has("durationMs")) {
            faults.during(kind, Duration.ofMillis(body.get("durationMs").asLong()));
        } else {
            faults.next(kind, body.path("count").asInt(1));
        }
    }

    private Reply limits() {
        ObjectNode root = Json.object();
        root.put("profile", profile);
        ArrayNode list = root.putArray("limits");
        for (Limit limit : limits) {
            ObjectNode l = list.addObject();
            l.put("name", limit.name());
            l.put("dimension", limit.dimension().name());
            l.put("capacity", limit.capacity());
            l.put("windowMs", limit.window().toMillis());
            l.put("algorithm", limit.algorithm().name());
            l.put("scope", limit.scope().name());
            l.put("burst", limit.effectiveBurst());
        }
        return json(200, Json.text(root));
    }

    private static Reply json(int status, String body) {
        return Reply.json(status, body.getBytes(StandardCharsets.UTF_8));
    }
}
