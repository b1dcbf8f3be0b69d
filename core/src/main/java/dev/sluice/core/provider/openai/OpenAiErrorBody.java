package dev.sluice.core.provider.openai;

import dev.sluice.core.provider.json.JsonFields;
import java.util.Map;

/**
 * The error envelope of the OpenAI format, {@code {"error":{"message","type","param","code"}}},
 * as OpenAI, Azure OpenAI and compatible servers send it. Any part may be missing; {@code code}
 * may be a string or a number (Azure sends {@code "429"}). Immutable.
 */
public final class OpenAiErrorBody {

    private static final OpenAiErrorBody EMPTY = new OpenAiErrorBody(null, null, null);

    private final String message;
    private final String type;
    private final String code;

    private OpenAiErrorBody(String message, String type, String code) {
        this.message = message;
        this.type = type;
        this.code = code;
    }

    /** Reads an error body; anything unreadable yields an empty one. */
    public static OpenAiErrorBody read(byte[] body) {
        if (body == null || body.length == 0) {
            return EMPTY;
        }
        Map<String, String> f = JsonFields.pick(body, "error.message", "error.type", "error.code");
        return of(f.get("error.message"), f.get("error.type"), f.get("error.code"));
    }

    public static OpenAiErrorBody of(String message, String type, String code) {
        return message == null && type == null && code == null ? EMPTY : new OpenAiErrorBody(message, type, code);
    }

    public String message() {
        return message;
    }

    public String type() {
        return type;
    }

    public String code() {
        return code;
    }

    public boolean isEmpty() {
        return this == EMPTY;
    }
}
