package dev.sluice.simulator.server;

import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.fault.Faults;
import dev.sluice.simulator.ledger.Exchange;
import dev.sluice.simulator.ledger.Ledger;
import dev.sluice.simulator.ledger.Outcome;
import dev.sluice.simulator.limit.AccelerationLimit;
import dev.sluice.simulator.limit.Admission;
import dev.sluice.simulator.limit.QuotaBook;
import dev.sluice.simulator.limit.ScopeKeys;
import dev.sluice.simulator.protocol.Ending;
import dev.sluice.simulator.protocol.Json;
import dev.sluice.simulator.protocol.ModelCall;
import dev.sluice.simulator.protocol.Pacing;
import dev.sluice.simulator.protocol.Parsed;
import dev.sluice.simulator.protocol.ProviderProtocol;
import dev.sluice.simulator.protocol.ProviderRequest;
import dev.sluice.simulator.protocol.Reply;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The path of one model request through the simulator, in the order a provider's front door takes
 * it: body size, parsing, forced answers, overload, the limits, then a paced answer with whatever
 * faults are armed. Every arrival lands in the ledger; what an admission holds is given back when
 * the exchange ends.
 */
final class CallHandler {
    private static final FaultKind[] ANSWERS = {
        FaultKind.RATE_LIMITED, FaultKind.INSUFFICIENT_QUOTA, FaultKind.BUDGET_EXCEEDED,
        FaultKind.NO_ENDPOINT_FOR_POLICY, FaultKind.BAD_REQUEST, FaultKind.SERVER_ERROR
    };

    private final ProviderProtocol protocol;
    private final QuotaBook quota;
    private final Ledger ledger;
    private final Faults faults;
    private final Clock clock;
    private final Identification identification;
    private final Pacing pacing;
    private final boolean countRefused;
    /** Refuses requests when the rate grows too fast; null: no such limit. */
    private volatile AccelerationLimit acceleration;

    CallHandler(
            ProviderProtocol protocol,
            QuotaBook quota,
            Ledger ledger,
            Faults faults,
            Clock clock,
            Identification identification,
            Pacing pacing,
            boolean countRefused) {
        this.protocol = protocol;
        this.countRefused = countRefused;
        this.quota = quota;
        this.ledger = ledger;
        this.faults = faults;
        this.clock = clock;
        this.identification = identification;
        this.pacing = pacing;
    }

    void accelerationLimit(AccelerationLimit limit) {
        this.acceleration = limit;
    }

    Reply handle(ProviderRequest request) {
        Instant arrived = clock.instant();
        String apiKey = protocol.apiKey(request);
        Draft draft = new Draft(
                arrived,
                apiKey,
                identification.organization(request, apiKey, protocol),
                identification.tenant(request),
                identification.callId(request),
                request.path());
        Set<FaultKind> forced;
        try {
            forced = forcedBy(request.header(identification.forceHeader()));
        } catch (IllegalArgumentException e) {
            return draft.finish(simulatorError(e.getMessage()), Outcome.ERROR, null);
        }
        if (request.body().length > protocol.maxBodyBytes()) {
            return draft.finish(protocol.bodyTooLarge(request.body().length), Outcome.ERROR, null);
        }
        Parsed parsed = protocol.parse(request);
        if (parsed.error() != null) {
            return draft.finish(parsed.error(), Outcome.ERROR, null);
        }
        ModelCall call = parsed.call();
        draft.call = call;
        ScopeKeys keys = new ScopeKeys(apiKey, draft.organization, call.model());
        for (FaultKind kind : ANSWERS) {
            if (faults.take(kind, forced.contains(kind))) {
                chargeRefused(keys);
                draft.fault = kind;
                return draft.finish(protocol.forced(kind, call, keys), Outcome.ERROR, null);
            }
        }
        if (faults.take(FaultKind.OVERLOAD, forced.contains(FaultKind.OVERLOAD))) {
            chargeRefused(keys);
            draft.fault = FaultKind.OVERLOAD;
            return draft.finish(protocol.overloaded(call), Outcome.OVERLOADED, null);
        }
        AccelerationLimit accel = acceleration;
        if (accel != null && !accel.accepts(clock.instant())) {
            chargeRefused(keys);
            return draft.finish(protocol.accelerationLimited(call, keys), Outcome.REJECTED, "acceleration");
        }
        Admission admission = quota.admit(keys, protocol.demand(call));
        if (!admission.admitted()) {
            chargeRefused(keys);
            Reply reply = protocol.rateLimited(call, admission, keys);
            malformIfArmed(reply, forced, draft);
            return draft.finish(
                    reply, Outcome.REJECTED, admission.refusedBy().limit().name());
        }
        protocol.admitted(call);
        draft.admittedAt = clock.instant();
        Map<Dimension, Long> settlement = protocol.settlement(call);
        ExchangeScope.whenDone(() -> {
            quota.release(admission);
            settlement.forEach((dimension, amount) -> quota.refund(admission, dimension, amount));
        });
        if (faults.take(FaultKind.CONNECTION_RESET, forced.contains(FaultKind.CONNECTION_RESET))) {
            draft.fault = FaultKind.CONNECTION_RESET;
            return draft.finish(new Reply(0).connectionReset(), Outcome.RESET, null);
        }
        Ending ending = Ending.COMPLETE;
        if (faults.take(FaultKind.TRUNCATED_STREAM, forced.contains(FaultKind.TRUNCATED_STREAM))) {
            ending = Ending.TRUNCATED;
            draft.fault = FaultKind.TRUNCATED_STREAM;
        } else if (call.stream()
                && faults.take(FaultKind.MID_STREAM_ERROR, forced.contains(FaultKind.MID_STREAM_ERROR))) {
            ending = Ending.MID_STREAM_ERROR;
            draft.fault = FaultKind.MID_STREAM_ERROR;
        }
        draft.outputTokens = ending == Ending.COMPLETE ? call.outputTokens() : call.outputTokens() / 2;
        Pacing paced = pacing;
        if (faults.take(FaultKind.SLOW_FIRST_BYTE, forced.contains(FaultKind.SLOW_FIRST_BYTE))) {
            paced = pacing.withExtraFirstByte(faults.slowFirstByteDelay());
            draft.fault = draft.fault == null ? FaultKind.SLOW_FIRST_BYTE : draft.fault;
        }
        Reply reply = protocol.success(call, admission.statuses(), paced, ending);
        malformIfArmed(reply, forced, draft);
        return draft.finish(reply, Outcome.ADMITTED, null);
    }

    private void malformIfArmed(Reply reply, Set<FaultKind> forced, Draft draft) {
        if (faults.take(FaultKind.MALFORMED_HEADERS, forced.contains(FaultKind.MALFORMED_HEADERS))) {
            reply.headers(protocol.malformedHeaders());
            draft.fault = draft.fault == null ? FaultKind.MALFORMED_HEADERS : draft.fault;
        }
    }

    // Providers that count failed requests charge them on the request limits.
    private void chargeRefused(ScopeKeys keys) {
        if (countRefused) {
            quota.chargeRefused(keys, Dimension.REQUESTS, 1);
        }
    }

    private static Set<FaultKind> forcedBy(String header) {
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        if (header != null) {
            for (String name : header.split(",")) {
                if (!name.isBlank()) {
                    kinds.add(FaultKind.parse(name));
                }
            }
        }
        return kinds;
    }

    private static Reply simulatorError(String message) {
        var root = Json.object();
        root.putObject("error").put("message", message).put("type", "simulator_error");
        return Reply.json(400, Json.bytes(root));
    }

    /** What the ledger will hold about this arrival, filled in as the request goes. */
    private final class Draft {
        final Instant arrivedAt;
        final String apiKey;
        final String organization;
        final String tenant;
        final String callId;
        final String path;
        ModelCall call;
        Instant admittedAt;
        FaultKind fault;
        long outputTokens;

        Draft(Instant arrivedAt, String apiKey, String organization, String tenant, String callId, String path) {
            this.arrivedAt = arrivedAt;
            this.apiKey = apiKey;
            this.organization = organization;
            this.tenant = tenant;
            this.callId = callId;
            this.path = path;
        }

        Reply finish(Reply reply, Outcome outcome, String refusedBy) {
            String header = protocol.organizationHeader();
            if (identification.announceOrganization() && header != null && !reply.isConnectionReset()) {
                reply.header(header, organization);
            }
            long seq = ledger.record(new Exchange(
                    0,
                    arrivedAt,
                    admittedAt,
                    null,
                    apiKey,
                    organization,
                    tenant,
                    callId,
                    call == null ? null : call.model(),
                    path,
                    call != null && call.stream(),
                    reply.status(),
                    outcome,
                    refusedBy,
                    call == null ? 0 : call.totalInputTokens(),
                    admittedAt == null ? 0 : outputTokens,
                    fault == null ? null : fault.wireName()));
            ExchangeScope.whenDone(() -> ledger.complete(seq));
            return reply;
        }
    }
}
