package dev.sluice.core.provider.gemini;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.JsonWalker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Google's error envelope, {@code {"error":{"code","message","status","details":[...]}}}, or the
 * same wrapped in a one-element array as Vertex AI often sends it. Of {@code details} it keeps what
 * decides a retry: {@code google.rpc.RetryInfo.retryDelay} and the {@code quotaId} /
 * {@code quotaMetric} of {@code google.rpc.QuotaFailure} violations. Also reads an error object
 * met inside a stream. Anything unreadable yields empty fields.
 */
final class GoogleError implements JsonVisitor {

    String code;
    String message;
    String status;
    String retryDelay;
    final List<String> quotaIds = new ArrayList<>(2);
    final List<String> quotaMetrics = new ArrayList<>(2);

    /** Reads an error body: an object or a one-element array of one. */
    static GoogleError read(byte[] body) {
        GoogleError e = new GoogleError();
        JsonWalker.walk(body, e);
        return e;
    }

    @Override
    public boolean enter(String path) {
        String p = path.startsWith("[].") ? path.substring(3) : path;
        return p.isEmpty() || p.equals("[]") || p.startsWith("error");
    }

    @Override
    public void scalar(String path, JsonParser p) throws IOException {
        String name = path.startsWith("[].") ? path.substring(3) : path;
        switch (name) {
            case "error.code":
                code = first(code, JsonScalars.text(p));
                return;
            case "error.message":
                message = first(message, JsonScalars.text(p));
                return;
            case "error.status":
                status = first(status, JsonScalars.text(p));
                return;
            case "error.details[].retryDelay":
                retryDelay = first(retryDelay, JsonScalars.text(p));
                return;
            case "error.details[].violations[].quotaId":
                add(quotaIds, JsonScalars.text(p));
                return;
            case "error.details[].violations[].quotaMetric":
                add(quotaMetrics, JsonScalars.text(p));
                return;
            default:
                if (name.equals("error") && p.currentToken() == JsonToken.VALUE_STRING) {
                    message = first(message, p.getText()); // a bare "error": "text"
                }
        }
    }

    private static void add(List<String> list, String value) {
        if (value != null && list.size() < 16) {
            list.add(value);
        }
    }

    private static String first(String current, String value) {
        return current != null ? current : value;
    }
}
