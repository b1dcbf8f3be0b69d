package dev.sluice.core.exchange;

import dev.sluice.core.provider.ProviderError;

/**
 * The error types a call listener is told ({@code "429"}, {@code "overloaded_error"}), made once:
 * a status's text is kept, so a refusal costs no string.
 */
final class StatusNames {

    private static final String[] STATUS = new String[600];

    static {
        for (int s = 100; s < STATUS.length; s++) {
            STATUS[s] = Integer.toString(s);
        }
    }

    /** The fallback the OpenTelemetry conventions name for an error of no known type. */
    static final String OTHER = "_OTHER";

    private StatusNames() {}

    static String of(int status) {
        return status >= 100 && status < STATUS.length ? STATUS[status] : OTHER;
    }

    /**
     * The type a stream's error event named ({@code overloaded_error}) when it is a short
     * identifier; anything else (absent, free text, long) is {@link #OTHER}, so a label never
     * carries a provider's message.
     */
    static String ofStreamError(ProviderError error) {
        String type = error.type();
        if (type == null || type.isEmpty() || type.length() > 64) {
            return OTHER;
        }
        for (int i = 0; i < type.length(); i++) {
            char c = type.charAt(i);
            boolean word = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '_'
                    || c == '.'
                    || c == '-';
            if (!word) {
                return OTHER;
            }
        }
        return type;
    }
}
