package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;
import com.fasterxml.jackson.core.sym.ByteQuadsCanonicalizer;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Jackson's parser over UTF-8 bytes, with one difference: {@link #getTextLength()} on a string
 * counts the string's chars in the input without decoding it, and the parser then moves past the
 * string from where the count ended instead of reading it a second time. Weighing a prompt needs
 * only its length: jackson's own {@code getTextLength} decodes the whole text into its buffers, and
 * its skip of a string not decoded reads every byte again (the two together were 40 % of the
 * engine's time for a call with an 8 KiB prompt, {@code GovernedCallBenchmark}).
 *
 * <p>The count is the one jackson would give: an escape is one char, a 4-byte UTF-8 sequence two (a
 * surrogate pair). A string the visitor also reads as text is decoded by jackson as usual. If the
 * input at the token is not what a string looks like, or the string does not end in the input, it
 * asks jackson. Unlike jackson's skip, moving past a counted string does not check it for
 * unescaped control characters or broken UTF-8: such a document is one the provider rejects, and
 * Sluice only weighs it.
 *
 * <p>Built by {@link SourcedJsonFactory} for input it knows to be UTF-8; relies on two protected
 * fields of jackson's parser ({@code _inputPtr} just after the opening quote of a string token not
 * yet read, {@code _tokenIncomplete}), which the {@code JsonWalkerTest} equivalence tests check.
 */
final class SourcedParser extends UTF8StreamJsonParser {

    /** Non-zero for the bytes that end a run of plain chars in a string: the quote, the backslash, and every non-ASCII byte. */
    private static final byte[] SPECIAL = new byte[256];

    static {
        SPECIAL['"'] = 1;
        SPECIAL['\\'] = 1;
        for (int b = 0x80; b < 0x100; b++) {
            SPECIAL[b] = 1;
        }
    }

    /** Where the last counted string's text began, or -1: the skip of that string may use {@link #countedEnd}. */
    private int countedStart = -1;
    /** Just after the closing quote of the string counted at {@link #countedStart}. */
    private int countedEnd;

    SourcedParser(
            IOContext context,
            int features,
            ObjectCodec codec,
            ByteQuadsCanonicalizer symbols,
            byte[] input,
            int start,
            int end) {
        super(context, features, null, codec, symbols, input, start, end, 0, false);
    }

    @Override
    public int getTextLength() throws IOException {
        if (_currToken == JsonToken.VALUE_STRING && _tokenIncomplete) {
            int counted = countString();
            if (counted >= 0) {
                return counted;
            }
        }
        return super.getTextLength();
    }

    @Override
    protected void _skipString() throws IOException {
        if (_tokenIncomplete && countedStart == _inputPtr) {
            _tokenIncomplete = false;
            _inputPtr = countedEnd;
            countedStart = -1;
            return;
        }
        super._skipString();
    }

    /** Chars of the string token not yet read, counted in the input; -1 if it is not found there. */
    private int countString() {
        byte[] bytes = _inputBuffer;
        int start = _inputPtr;
        int end = _inputEnd;
        if (start < 1 || start > end || bytes[start - 1] != '"') {
            return -1;
        }
        byte[] special = SPECIAL;
        ByteBuffer words = null; // made at the first run with eight bytes of input left
        boolean longRuns = true; // false after a short run: text dense with non-ASCII goes byte by byte
        int i = start;
        int n = 0;
        while (true) {
            int run = i;
            if (longRuns && end - i >= 8) {
                // a run of plain ASCII eight bytes at a time, to its first special byte
                if (words == null) {
                    words = JsonBytes.words(bytes);
                }
                i = JsonBytes.firstSpecialOrTail(words, i, end);
            }
            // the rest of the run (or all of a short one), one table look-up a byte
            while (i < end && special[bytes[i] & 0xFF] == 0) {
                i++;
            }
            n += i - run;
            longRuns = i - run >= 8;
            if (i >= end) {
                return -1;
            }
            int c = bytes[i] & 0xFF;
            if (c == '"') {
                countedStart = start;
                countedEnd = i + 1;
                return n;
            }
            if (c == '\\') {
                i += i + 1 < end && bytes[i + 1] == 'u' ? 6 : 2;
                n++;
                continue;
            }
            if (c >= 0xF0) {
                n += 2; // a 4-byte sequence is a surrogate pair
            } else if (c >= 0xC0) {
                n++; // the lead byte of a 2- or 3-byte sequence
            } // continuation bytes (0x80 to 0xBF) add nothing
            i++;
        }
    }
}
