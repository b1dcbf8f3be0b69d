package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.IOContext;
import java.io.IOException;

/**
 * Jackson's factory, except that a document of bytes that can only be UTF-8 (it starts with an
 * ASCII character that is not a byte-order mark, and its second byte is not zero, as UTF-16 and
 * UTF-32 would have) is parsed by a {@link SourcedParser}. Anything else goes through jackson's
 * own encoding detection.
 */
final class SourcedJsonFactory extends JsonFactory {

    private static final long serialVersionUID = 1L;

    @Override
    protected JsonParser _createParser(byte[] data, int offset, int len, IOContext context) throws IOException {
        if (len >= 2 && data[offset] > 0 && data[offset + 1] != 0) {
            return new SourcedParser(
                    context,
                    _parserFeatures,
                    _objectCodec,
                    _byteSymbolCanonicalizer.makeChild(_factoryFeatures),
                    data,
                    offset,
                    offset + len);
        }
        return super._createParser(data, offset, len, context);
    }
}
