package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.HttpTransport;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * The one change a governed AWS request may see: Sluice's private {@code X-Sluice-*} headers taken
 * out, and only those the signature does not cover. The SDK signed the request (SigV4) before its
 * HTTP client saw it; a signed header removed or changed would void the signature, so a private
 * header the application had signed stays (and reaches AWS, which ignores it).
 */
final class SignedHeaders {

    private static final String SIGNED = "SignedHeaders=";

    private SignedHeaders() {}

    /** The request without its unsigned private headers; the request itself when it has none. */
    static SdkHttpRequest withoutPrivateHeaders(SdkHttpRequest request) {
        Map<String, List<String>> headers = request.headers();
        SdkHttpRequest.Builder stripped = null;
        String signed = null;
        for (String name : headers.keySet()) {
            if (!HttpTransport.isPrivateHeader(name)) {
                continue;
            }
            if (signed == null) {
                signed = signedHeaders(
                        request.firstMatchingHeader("Authorization").orElse(null));
            }
            if (isSigned(signed, name)) {
                continue;
            }
            if (stripped == null) {
                stripped = request.toBuilder();
            }
            stripped.removeHeader(name);
        }
        return stripped == null ? request : stripped.build();
    }

    /** The {@code SignedHeaders=} list of a SigV4 {@code Authorization} value, lower case, {@code ;}-separated; "" when none. */
    static String signedHeaders(String authorization) {
        if (authorization == null) {
            return "";
        }
        int at = authorization.indexOf(SIGNED);
        if (at < 0) {
            return "";
        }
        int start = at + SIGNED.length();
        int end = start;
        while (end < authorization.length() && authorization.charAt(end) != ',' && authorization.charAt(end) != ' ') {
            end++;
        }
        return authorization.substring(start, end).toLowerCase(Locale.ROOT);
    }

    static boolean isSigned(String signedHeaders, String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (String s : signedHeaders.split(";")) {
            if (s.equals(n)) {
                return true;
            }
        }
        return false;
    }
}
