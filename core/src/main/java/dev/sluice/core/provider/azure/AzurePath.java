package dev.sluice.core.provider.azure;

import dev.sluice.core.provider.openai.OpenAiOperation;

/**
 * Where an Azure OpenAI request goes: the operation and, on the classic routes, the deployment.
 * Routes: {@code /openai/deployments/{deployment}/<tail>}, the v1 API {@code /openai/v1/<tail>}
 * (the body's {@code model} names the deployment), and {@code /openai/responses}. Immutable.
 */
final class AzurePath {

    private static final String DEPLOYMENTS = "/openai/deployments/";
    private static final String V1 = "/openai/v1/";

    final OpenAiOperation operation;
    /** The deployment named in the path, or null on the v1 and Responses routes. */
    final String deployment;

    private AzurePath(OpenAiOperation operation, String deployment) {
        this.operation = operation;
        this.deployment = deployment;
    }

    /** The route of a path, or null when it is not one Sluice governs. */
    static AzurePath of(String path) {
        if (path == null) {
            return null;
        }
        if (path.startsWith(DEPLOYMENTS)) {
            int slash = path.indexOf('/', DEPLOYMENTS.length());
            if (slash <= DEPLOYMENTS.length()) {
                return null;
            }
            String deployment = decode(path.substring(DEPLOYMENTS.length(), slash));
            OpenAiOperation op = OpenAiOperation.at(path, slash + 1);
            return op == null ? null : new AzurePath(op, deployment);
        }
        OpenAiOperation op = OpenAiOperation.at(path, V1);
        if (op == null && ("/openai/responses".equals(path) || "/openai/responses/".equals(path))) {
            op = OpenAiOperation.RESPONSES;
        }
        return op == null ? null : new AzurePath(op, null);
    }

    private static String decode(String segment) {
        try {
            return java.net.URLDecoder.decode(segment.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return segment;
        }
    }
}
