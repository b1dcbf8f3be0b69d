package dev.sluice.instrumentation.awssdk.helper;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

class SignedHeadersTest {

    static SdkHttpRequest.Builder request(String signedHeaders) {
        return SdkHttpFullRequest.builder()
                .method(SdkHttpMethod.POST)
                .protocol("https")
                .host("bedrock-runtime.us-east-1.amazonaws.com")
                .encodedPath("/model/m/converse")
                .putHeader(
                        "Authorization",
                        "AWS4-HMAC-SHA256 Credential=AKID/20261207/us-east-1/bedrock/aws4_request, SignedHeaders="
                                + signedHeaders + ", Signature=abc");
    }

    @Test
    void anUnsignedPrivateHeaderIsTakenOutAndNothingElse() {
        SdkHttpRequest r = request("host;x-amz-date")
                .putHeader("X-Sluice-Tenant", "search")
                .putHeader("x-amz-date", "20261207T000000Z")
                .build();

        SdkHttpRequest sent = SignedHeaders.withoutPrivateHeaders(r);

        assertThat(sent.headers()).doesNotContainKey("X-Sluice-Tenant");
        assertThat(sent.firstMatchingHeader("x-amz-date")).hasValue("20261207T000000Z");
        assertThat(sent.firstMatchingHeader("Authorization")).isEqualTo(r.firstMatchingHeader("Authorization"));
    }

    @Test
    void aSignedPrivateHeaderStaysOrTheSignatureWouldBreak() {
        SdkHttpRequest r = request("host;x-amz-date;x-sluice-tenant")
                .putHeader("X-Sluice-Tenant", "search")
                .build();

        assertThat(SignedHeaders.withoutPrivateHeaders(r)).isSameAs(r);
    }

    @Test
    void aRequestWithoutPrivateHeadersIsSentAsItIs() {
        SdkHttpRequest r = request("host").putHeader("x-amz-date", "x").build();
        assertThat(SignedHeaders.withoutPrivateHeaders(r)).isSameAs(r);
    }

    @Test
    void signedHeadersAreReadFromSigV4Only() {
        assertThat(SignedHeaders.signedHeaders(
                        "AWS4-HMAC-SHA256 Credential=a/b, SignedHeaders=Host;X-Amz-Date, Signature=s"))
                .isEqualTo("host;x-amz-date");
        assertThat(SignedHeaders.signedHeaders("Bearer token")).isEmpty();
        assertThat(SignedHeaders.signedHeaders(null)).isEmpty();
    }
}
