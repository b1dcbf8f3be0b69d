package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import java.io.IOException;

/**
 * {@link SourcedParser}'s counterpart for JSON given as a {@code String}: the walker's parser
 * delegated to, except that {@link #getTextLength()} on a string counts the string's chars in the
 * input instead of decoding it. If the input at the token is not what a string looks like, it asks
 * jackson.
 */
final class SourcedCharsParser extends JsonParserDelegate {

    private final String chars;

    SourcedCharsParser(JsonParser parser, String chars) {
        super(parser);
        this.chars = chars;
    }

    @Override
    public int getTextLength() throws IOException {
        if (currentToken() == JsonToken.VALUE_STRING) {
            int counted = countChars();
            if (counted >= 0) {
                return counted;
            }
        }
        return super.getTextLength();
    }

    /** Chars of the string whose opening quote the token starts at; -1 if not found. */
    private int countChars() {
        long at = delegate.currentTokenLocation().getCharOffset();
        if (at < 0 || at >= chars.length() || chars.charAt((int) at) != '"') {
            return -1;
        }
        int end = chars.length();
        int i = (int) at + 1;
        int n = 0;
        while (i < end) {
            char c = chars.charAt(i);
            if (c == '"') {
                return n;
            }
            if (c == '\\') {
                i += i + 1 < end && chars.charAt(i + 1) == 'u' ? 6 : 2;
            } else {
                i++;
            }
            n++;
        }
        return -1;
    }
}
