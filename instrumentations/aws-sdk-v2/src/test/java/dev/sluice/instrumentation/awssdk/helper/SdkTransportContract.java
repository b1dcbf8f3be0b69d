package dev.sluice.instrumentation.awssdk.helper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.instrumentation.testing.HttpTransportContract;
import dev.sluice.instrumentation.testing.LoopbackServer;
import dev.sluice.instrumentation.testing.RecordingObserver;
import java.util.Collections;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpFullRequest;

/**
 * The transport contract as an AWS transport keeps it: each call is the request the SDK hands its
 * client ({@link SdkRequests}).
 *
 * <p>The contract's calls carry {@code Authorization: Bearer}, which is what the SDK sends for
 * Bedrock with an API key: nothing is signed, so the contract applies as written. With SigV4 (the
 * default) two of its expectations cannot hold, and are checked here in their signed form instead:
 * the {@code Authorization} the transport tells is the SDK's signature, not the application's; and a
 * private header the signature covers is not taken out (removing it would void the signature: AWS
 * would answer 403), while one it does not cover is. What every signed attempt must keep, the
 * signature, is checked as AWS checks it.
 */
abstract class SdkTransportContract extends HttpTransportContract {

    /** As the hook makes it: the transport of {@code request}, as the SDK hands it to its client. */
    protected abstract HttpTransport transportOf(SdkHttpFullRequest request) throws Exception;

    @Override
    protected final HttpTransport transport(ApplicationCall call) throws Exception {
        return transportOf(SdkRequests.of(call.method, call.url, call.headers, call.contentType, call.body));
    }

    @Test
    void aSignedCallIsSentAsSignedByEveryAttemptOnlyItsUnsignedPrivateHeadersTakenOut() throws Exception {
        server.reply(LoopbackServer.Reply.status(429).json(REFUSAL));
        String url = server.url("/model/m/converse");
        SdkHttpFullRequest signed = SdkRequests.signedWithAnUnsignedPrivateHeader(url, CHAT);
        HttpTransport t = transportOf(signed);
        assertThat(t.requestHeaders()).as("told as the SDK made it").isEqualTo(signed.headers());

        t.requestBodyRead();
        t.discard(sendWhileTheTestGoesOn(t, new RecordingObserver()).get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS));
        Object answer = sendWhileTheTestGoesOn(t, new RecordingObserver()).get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
        Received received = receive(t, t.handBack(answer, Collections.emptyMap()));

        assertThat(received.status).isEqualTo(200);
        assertThat(server.requests()).hasSize(2).allSatisfy(r -> SdkRequests.assertSentAsSigned(r, url, CHAT));
    }
}
