package dev.sluice.core.fallback;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.config.ProviderKind;
import dev.sluice.core.provider.ProviderBinding;
import dev.sluice.core.provider.wire.ApiKeyIds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One route a call may move to, and the rewrite that sends it there. Sluice changes what the route
 * needs and nothing else: the address (scheme, host, port, base path; the call's path after its
 * provider's base path and its query are kept), the Azure deployment (in the path, or the body's
 * {@code model} on Azure's v1 routes, where the model names the deployment), the body's {@code
 * model} when the route names one, and the credential in the header its protocol reads it from
 * ({@code api-key} for Azure OpenAI, {@code Authorization: Bearer} for OpenAI and compatible
 * servers, {@code x-api-key} for Anthropic). Immutable; the credential never appears in {@link
 * #toString()}.
 */
public final class FallbackRoute {

    private static final JsonFactory JSON = new JsonFactory();
    private static final String DEPLOYMENTS = "/openai/deployments/";

    private final String name;
    private final ProviderBinding target;
    private final String baseUrl;
    private final String fromBasePath;
    private final String deployment;
    private final String model;
    private final String credential;
    private final String apiKeyId;

    /**
     * @param fromBasePath the path of the address calls from the primary provider go to, taken off
     *     the front of a call's path before the route's base is put there ({@code ""} for none)
     * @param credential the key itself (read from the environment), or null to keep the call's own
     */
    public FallbackRoute(
            String name,
            ProviderBinding target,
            String baseUrl,
            String fromBasePath,
            String deployment,
            String model,
            String credential) {
        this.name = Objects.requireNonNull(name, "name");
        this.target = Objects.requireNonNull(target, "target");
        this.baseUrl = trimSlash(Objects.requireNonNull(baseUrl, "baseUrl"));
        this.fromBasePath = fromBasePath == null ? "" : trimSlash(fromBasePath);
        this.deployment = deployment;
        this.model = model;
        this.credential = credential;
        this.apiKeyId = ApiKeyIds.of(credential);
    }

    private static String trimSlash(String s) {
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    /** The route's name, as the answer's {@code sluice-route} header and JMX show it. */
    public String name() {
        return name;
    }

    /** The provider whose limits and scope the route's calls count in. */
    public ProviderBinding target() {
        return target;
    }

    /** The deployment the route sends calls to; null to keep the call's own. */
    public String deployment() {
        return deployment;
    }

    /** The model the route writes into the body; null to keep the call's own. */
    public String model() {
        return model;
    }

    /**
     * The id ({@link ApiKeyIds}) of the route's own credential, which its calls are counted under;
     * null when the route keeps the call's key. Worked out once: a move never hashes the key.
     */
    public String apiKeyId() {
        return apiKeyId;
    }

    /**
     * The call's request as this route sends it.
     *
     * @param url the call's URL as the application made it
     * @param body the call's body (or null), of which the first {@code bodyLength} bytes count
     * @throws IllegalArgumentException when the URL or a body to rewrite cannot be read
     */
    public Rewritten rewrite(String url, byte[] body, int bodyLength) {
        URI uri = URI.create(url);
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (!fromBasePath.isEmpty() && path.startsWith(fromBasePath)) {
            path = path.substring(fromBasePath.length());
        }
        String bodyModel = model;
        if (deployment != null && target.kind() == ProviderKind.AZURE_OPENAI) {
            if (path.startsWith(DEPLOYMENTS)) {
                int slash = path.indexOf('/', DEPLOYMENTS.length());
                if (slash > 0) {
                    path = DEPLOYMENTS
                            + URLEncoder.encode(deployment, StandardCharsets.UTF_8)
                                    .replace("+", "%20")
                            + path.substring(slash);
                }
            } else if (bodyModel == null) {
                bodyModel = deployment; // Azure's v1 routes name the deployment in the body's model
            }
        }
        String query = uri.getRawQuery();
        String newUrl = baseUrl + path + (query == null ? "" : "?" + query);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("host", null); // the client derives it from the URL
        if (credential != null) {
            ProviderKind kind = target.kind();
            credentialHeaders(kind == null ? ProviderKind.OPENAI : kind, credential, headers);
        }
        byte[] newBody = null;
        if (bodyModel != null && body != null && bodyLength > 0) {
            newBody = withModel(body, bodyLength, bodyModel);
            if (newBody != null) {
                headers.put("content-length", null);
            }
        }
        return new Rewritten(newUrl, headers, newBody);
    }

    /** The headers carrying a key in this protocol: set its own, remove the others' (a key must not go where it is not meant). */
    static void credentialHeaders(ProviderKind kind, String key, Map<String, String> headers) {
        switch (kind) {
            case AZURE_OPENAI:
                headers.put("api-key", key);
                headers.put("authorization", null);
                break;
            case ANTHROPIC:
                headers.put("x-api-key", key);
                headers.put("authorization", null);
                break;
            default:
                headers.put("authorization", "Bearer " + key);
                headers.put("api-key", null);
                break;
        }
    }

    /**
     * The body with its root object's {@code model} set, every other member written back with the
     * same value; null when the body is not a JSON object or names no model.
     */
    static byte[] withModel(byte[] body, int length, String model) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(length + model.length());
        boolean replaced = false;
        try (JsonParser in = JSON.createParser(body, 0, length);
                JsonGenerator gen = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            if (in.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            gen.writeStartObject();
            JsonToken t;
            while ((t = in.nextToken()) == JsonToken.FIELD_NAME) {
                String field = in.getCurrentName();
                in.nextToken();
                if (field.equals("model") && in.currentToken() == JsonToken.VALUE_STRING) {
                    gen.writeStringField("model", model);
                    replaced = true;
                } else {
                    gen.writeFieldName(field);
                    gen.copyCurrentStructure(in);
                }
            }
            if (t != JsonToken.END_OBJECT) {
                return null;
            }
            gen.writeEndObject();
        } catch (IOException malformed) {
            return null;
        }
        return replaced ? out.toByteArray() : null;
    }

    @Override
    public String toString() {
        return "FallbackRoute{" + name + " -> " + target.name() + " at " + baseUrl
                + (deployment == null ? "" : ", deployment " + deployment)
                + (model == null ? "" : ", model " + model)
                + (credential == null ? "" : ", its own credential") + "}";
    }
}
