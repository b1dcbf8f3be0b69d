package dev.sluice.instrumentation.awssdk.helper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.instrumentation.testing.LoopbackServer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.List;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * Requests as the SDK hands them to its HTTP client: marshalled whole ({@code SdkHttpFullRequest},
 * its length told), authenticated by a bearer token (a Bedrock API key: nothing is signed) or
 * signed (SigV4, the SDK's own signer). And the check AWS makes of a signed request it receives:
 * the signature computed again over the request as received must be the one it carries.
 */
final class SdkRequests {

    private static final AwsCredentialsIdentity KEYS =
            AwsCredentialsIdentity.create("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private SdkRequests() {}

    /** The request the SDK marshals: headers in order, the body's type and length, a body given again to each reader. */
    static SdkHttpFullRequest of(String method, String url, List<String[]> headers, String contentType, byte[] body) {
        SdkHttpFullRequest.Builder b = SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.fromValue(method))
                .uri(URI.create(url));
        for (String[] h : headers) {
            b.appendHeader(h[0], h[1]);
        }
        if (body != null) {
            b.putHeader("Content-Type", contentType)
                    .putHeader("Content-Length", Integer.toString(body.length))
                    .contentStreamProvider(ContentStreamProvider.fromByteArray(body));
        }
        return b.build();
    }

    /** The request the SDK's signer makes of {@code request}: every header it has is signed. */
    static SdkHttpFullRequest sign(SdkHttpFullRequest request) {
        return sign(request, Clock.systemUTC());
    }

    private static SdkHttpFullRequest sign(SdkHttpFullRequest request, Clock clock) {
        SdkHttpRequest signed = AwsV4HttpSigner.create()
                .sign(r -> r.request(request)
                        .payload(request.contentStreamProvider().orElse(null))
                        .identity(KEYS)
                        .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "bedrock")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                        .putProperty(HttpSigner.SIGNING_CLOCK, clock))
                .request();
        return ((SdkHttpFullRequest) signed)
                .toBuilder()
                        .contentStreamProvider(request.contentStreamProvider().orElse(null))
                        .build();
    }

    /**
     * A Bedrock call signed with {@code X-Sluice-Tenant}, which the signature then covers, and given
     * {@code X-Sluice-Class} once signed, which it does not (a wrapper of the SDK's client can add
     * one; the SDK's interceptors see the signed request read-only).
     */
    static SdkHttpFullRequest signedWithAnUnsignedPrivateHeader(String url, String json) {
        SdkHttpFullRequest signed = sign(of(
                "POST",
                url,
                Collections.singletonList(new String[] {"X-Sluice-Tenant", "search"}),
                "application/json",
                json.getBytes(StandardCharsets.UTF_8)));
        return signed.toBuilder().putHeader("X-Sluice-Class", "batch").build();
    }

    /** {@code received}, of {@link #signedWithAnUnsignedPrivateHeader}, arrived as signed: only its unsigned private header taken out. */
    static void assertSentAsSigned(LoopbackServer.Recorded received, String url, String json) {
        assertTheSignatureHolds(received, url);
        assertThat(received.header("x-sluice-tenant")).as("signed: it stays").containsExactly("search");
        assertThat(received.header("x-sluice-class")).as("unsigned: taken out").isEmpty();
        assertThat(received.bodyText()).isEqualTo(json);
    }

    /**
     * What AWS checks of a request it receives: the headers the signature names, with the values
     * received, and the body received, signed again with the same keys at the same time, give the
     * {@code Authorization} received.
     */
    private static void assertTheSignatureHolds(LoopbackServer.Recorded received, String url) {
        String authorization = received.header("authorization").get(0);
        String signedNames = SignedHeaders.signedHeaders(authorization);
        assertThat(signedNames).as("a SigV4 request names its signed headers").isNotEmpty();
        SdkHttpFullRequest.Builder again = SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.fromValue(received.method))
                .uri(URI.create(url));
        for (String name : signedNames.split(";")) {
            List<String> values = received.header(name);
            assertThat(values).as("the signed header %s arrived", name).isNotEmpty();
            if (!name.equals("host")) {
                again.putHeader(name, values);
            }
        }
        byte[] body = received.body;
        again.contentStreamProvider(ContentStreamProvider.fromByteArray(body));
        Instant at = Instant.from(AMZ_DATE.parse(received.header("x-amz-date").get(0)));
        SdkHttpFullRequest resigned = sign(again.build(), Clock.fixed(at, ZoneOffset.UTC));
        assertThat(resigned.firstMatchingHeader("Authorization"))
                .as("the signature of the request as it arrived")
                .hasValue(authorization);
    }
}
