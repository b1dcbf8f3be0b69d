package dev.sluice.core.provider.bedrock;

import dev.sluice.core.provider.Urls;

/**
 * Where a Bedrock Runtime request goes: {@code /model/{modelId}/converse}, {@code /converse-stream},
 * {@code /invoke} or {@code /invoke-with-response-stream}, the model id percent-encoded in the path
 * (the SDK writes {@code anthropic.claude-3-haiku-20240307-v1%3A0}; an inference profile or a
 * provisioned model is an ARN, its colons and slashes encoded too), and the region in the host
 * ({@code bedrock-runtime.us-east-1.amazonaws.com}). Other paths ({@code /count-tokens},
 * {@code /invoke-with-bidirectional-stream}, {@code /async-invoke}, guardrails) are not governed.
 * Immutable.
 */
final class BedrockPath {

    static final String CONVERSE = "converse";
    static final String CONVERSE_STREAM = "converse-stream";
    static final String INVOKE = "invoke";
    static final String INVOKE_STREAM = "invoke-with-response-stream";

    private static final String PREFIX = "/model/";

    private static final String HOST_PREFIX = "bedrock-runtime.";
    private static final String FIPS_HOST_PREFIX = "bedrock-runtime-fips.";
    private static final String[] HOST_SUFFIXES = {".amazonaws.com", ".amazonaws.com.cn"};

    /** The model id as the request names it, decoded. */
    final String model;
    /** One of {@link #CONVERSE}, {@link #CONVERSE_STREAM}, {@link #INVOKE}, {@link #INVOKE_STREAM}. */
    final String operation;

    private BedrockPath(String model, String operation) {
        this.model = model;
        this.operation = operation;
    }

    /** The route of a governed path, or null (another operation, or no model). A trailing slash is tolerated. */
    static BedrockPath of(String path) {
        if (path == null || !path.startsWith(PREFIX)) {
            return null;
        }
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int slash = p.lastIndexOf('/');
        if (slash <= PREFIX.length()) {
            return null;
        }
        String operation = operation(p.substring(slash + 1));
        String encoded = p.substring(PREFIX.length(), slash);
        if (operation == null || encoded.indexOf('/') >= 0) {
            return null; // an ARN's slashes are encoded: a raw one is another path
        }
        String model = Urls.decodeSegment(encoded);
        return model == null || model.isEmpty() ? null : new BedrockPath(model, operation);
    }

    /** Whether the answer is an event stream. */
    boolean streams() {
        return operation.equals(CONVERSE_STREAM) || operation.equals(INVOKE_STREAM);
    }

    /** Whether the body is Bedrock's own Converse shape (not the model's native body). */
    boolean converse() {
        return operation.equals(CONVERSE) || operation.equals(CONVERSE_STREAM);
    }

    private static String operation(String last) {
        switch (last) {
            case CONVERSE:
                return CONVERSE;
            case CONVERSE_STREAM:
                return CONVERSE_STREAM;
            case INVOKE:
                return INVOKE;
            case INVOKE_STREAM:
                return INVOKE_STREAM;
            default:
                return null;
        }
    }

    /**
     * The region of a Bedrock Runtime host ({@code bedrock-runtime.us-east-1.amazonaws.com},
     * {@code bedrock-runtime-fips.us-east-1.amazonaws.com}, {@code .amazonaws.com.cn}), or null
     * when the host is not one.
     */
    static String regionOfHost(String bareHost) {
        String rest;
        if (bareHost.startsWith(HOST_PREFIX)) {
            rest = bareHost.substring(HOST_PREFIX.length());
        } else if (bareHost.startsWith(FIPS_HOST_PREFIX)) {
            rest = bareHost.substring(FIPS_HOST_PREFIX.length());
        } else {
            return null;
        }
        for (String suffix : HOST_SUFFIXES) {
            if (rest.endsWith(suffix)) {
                String region = rest.substring(0, rest.length() - suffix.length());
                return isRegion(region) ? region : null;
            }
        }
        return null;
    }

    /** A region name: lower-case letters, digits and dashes, one label ({@code us-east-1}, {@code eu-central-2}). */
    static boolean isRegion(String s) {
        if (s == null || s.isEmpty() || s.length() > 32) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                return false;
            }
        }
        return true;
    }
}
