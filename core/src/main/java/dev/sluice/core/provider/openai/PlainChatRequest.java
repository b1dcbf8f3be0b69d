package dev.sluice.core.provider.openai;

import static dev.sluice.core.provider.json.JsonBytes.DECLINED;

import dev.sluice.core.provider.json.JsonBytes;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.wire.HeaderNumbers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads an OpenAI chat request ({@code /chat/completions}: model, output cap, stream flags,
 * messages, tools) straight from its bytes into an {@link OpenAiRequestBody}, with no parser and no
 * path strings. A jackson walk of that body was half of what weighing a call's request cost Sluice
 * (docs/benchmarks.md "Per-call overhead"): a parser made, its symbol table and buffers touched,
 * a path string looked up per value, on every call.
 *
 * <p>Exact by declining, as {@link dev.sluice.core.provider.json.PlainCounts} is: what it reads,
 * it reads as the walk does (the same fields, the same rules), and it answers false, leaving the
 * body to the walk, for anything else: JSON {@link JsonBytes} does not take, a body whose root is
 * not an object, the members of other operations' bodies ({@code input}, {@code prompt}, {@code
 * instructions}, {@code suffix}, {@code text}), and values the walk reads its own way (a model that
 * is not plain ASCII text, an output cap that is not a plain integer, a stream flag that is a
 * container). Not thread-safe: one per read.
 */
final class PlainChatRequest {

    /** How deep a value the read passes over may nest (jackson's own bound is 500). */
    private static final int MOST_SKIPPED_DEPTH = 32;

    /** Longer model names are declined. */
    private static final int MOST_MODEL_BYTES = 256;

    // What an object is, which says what its members mean.
    private static final int IN_ROOT = 0;
    private static final int IN_STREAM_OPTIONS = 1;
    private static final int IN_MESSAGE = 2;
    private static final int IN_CONTENT_PART = 3;
    private static final int IN_TOOL_CALL = 4;
    private static final int IN_FUNCTION = 5;
    private static final int IN_FUNCTION_CALL = 6;

    // What an array is, which says what its elements mean.
    private static final int OF_MESSAGES = 0;
    private static final int OF_CONTENT_PARTS = 1;
    private static final int OF_TOOL_CALLS = 2;
    private static final int OF_TOOLS = 3;

    // The member names read, each by its index in NAMES; any other name is OTHER.
    private static final int OTHER = -1;
    private static final int MODEL = 0;
    private static final int MAX_TOKENS = 1;
    private static final int MAX_COMPLETION_TOKENS = 2;
    private static final int MAX_OUTPUT_TOKENS = 3;
    private static final int STREAM = 4;
    private static final int STREAM_OPTIONS = 5;
    private static final int INCLUDE_USAGE = 6;
    private static final int MESSAGES = 7;
    private static final int TOOLS = 8;
    private static final int FUNCTIONS = 9;
    private static final int RESPONSE_FORMAT = 10;
    private static final int CONTENT = 11;
    private static final int NAME = 12;
    private static final int REFUSAL = 13;
    private static final int TOOL_CALLS = 14;
    private static final int FUNCTION_CALL = 15;
    private static final int FUNCTION = 16;
    private static final int ARGUMENTS = 17;
    private static final int TEXT = 18;
    // members of other operations' bodies, which the walk reads
    private static final int INPUT = 19;
    private static final int PROMPT = 20;
    private static final int INSTRUCTIONS = 21;
    private static final int SUFFIX = 22;
    private static final int SERVICE_TIER = 23;

    private static final byte[][] NAMES = {
        bytes("model"),
        bytes("max_tokens"),
        bytes("max_completion_tokens"),
        bytes("max_output_tokens"),
        bytes("stream"),
        bytes("stream_options"),
        bytes("include_usage"),
        bytes("messages"),
        bytes("tools"),
        bytes("functions"),
        bytes("response_format"),
        bytes("content"),
        bytes("name"),
        bytes("refusal"),
        bytes("tool_calls"),
        bytes("function_call"),
        bytes("function"),
        bytes("arguments"),
        bytes("text"),
        bytes("input"),
        bytes("prompt"),
        bytes("instructions"),
        bytes("suffix"),
        bytes("service_tier")
    };

    /** Per name length, the names of that length: a member's name is compared with two or three at most. */
    private static final int[][] NAMES_OF_LENGTH = namesByLength();

    /**
     * The model named last, given again while calls name the same one: one string for them all, so
     * the maps keyed by model (prices, the estimator's corrections, routes) find its hash made and
     * compare it by identity, instead of hashing a new string on every call.
     */
    private static volatile String lastModel;

    private final byte[] json;
    private final int end;
    private final ByteBuffer words;
    private final OpenAiRequestBody into;

    private PlainChatRequest(byte[] json, int end, OpenAiRequestBody into) {
        this.json = json;
        this.end = end;
        this.words = JsonBytes.words(json);
        this.into = into;
    }

    /**
     * Reads the body in {@code body}'s first {@code length} bytes into {@code into}; false when it
     * declines, {@code into} then holding part of what it read (the caller drops it). Never throws.
     */
    static boolean read(byte[] body, int length, OpenAiRequestBody into) {
        if (body == null || length < 0 || length > body.length) {
            return false;
        }
        try {
            int root = JsonBytes.skipSpace(body, 0, length);
            // content after the root object is ignored, as by the walk
            return new PlainChatRequest(body, length, into).object(root, IN_ROOT) != DECLINED;
        } catch (RuntimeException unexpected) {
            return false;
        }
    }

    /** The object at {@code i}, its members read as {@code kind} says; just past it, or declined. */
    private int object(int i, int kind) {
        if (i >= end || json[i] != '{') {
            return DECLINED;
        }
        i = JsonBytes.skipSpace(json, i + 1, end);
        if (i < end && json[i] == '}') {
            return i + 1;
        }
        while (true) {
            int nameEnd = JsonBytes.nameEnd(json, i, end);
            if (nameEnd == DECLINED) {
                return DECLINED;
            }
            int value = JsonBytes.colon(json, nameEnd + 1, end);
            if (value == DECLINED) {
                return DECLINED;
            }
            i = JsonBytes.separator(json, member(kind, i + 1, nameEnd, value), end, '}');
            if (i == DECLINED) {
                return DECLINED;
            }
            if (json[i] == '}') {
                return i + 1;
            }
            i = JsonBytes.skipSpace(json, i + 1, end);
        }
    }

    /** The array at {@code i}, its elements read as {@code kind} says; just past it, or declined. */
    private int array(int i, int kind) {
        i = JsonBytes.skipSpace(json, i + 1, end);
        if (i < end && json[i] == ']') {
            return i + 1;
        }
        while (true) {
            i = JsonBytes.separator(json, element(kind, i), end, ']');
            if (i == DECLINED) {
                return DECLINED;
            }
            if (json[i] == ']') {
                return i + 1;
            }
            i = JsonBytes.skipSpace(json, i + 1, end);
        }
    }

    /** The value at {@code i} of the member named {@code json[from, to)} of a {@code kind} object; just past it. */
    private int member(int kind, int from, int to, int i) {
        int name = nameOf(from, to);
        switch (kind) {
            case IN_ROOT:
                return rootMember(name, i);
            case IN_STREAM_OPTIONS:
                return name == INCLUDE_USAGE ? flag(i, false) : skip(i);
            case IN_MESSAGE:
                switch (name) {
                    case CONTENT:
                        return isArray(i) ? array(i, OF_CONTENT_PARTS) : text(i);
                    case NAME:
                    case REFUSAL:
                        return text(i);
                    case TOOL_CALLS:
                        return isArray(i) ? array(i, OF_TOOL_CALLS) : skip(i);
                    case FUNCTION_CALL:
                        return isObject(i) ? object(i, IN_FUNCTION_CALL) : skip(i);
                    default:
                        return skip(i);
                }
            case IN_CONTENT_PART:
                return name == TEXT ? text(i) : skip(i);
            case IN_TOOL_CALL:
                return name == FUNCTION && isObject(i) ? object(i, IN_FUNCTION) : skip(i);
            case IN_FUNCTION:
                return name == NAME || name == ARGUMENTS ? text(i) : skip(i);
            default: // IN_FUNCTION_CALL: its name is not counted, as in the walk
                return name == ARGUMENTS ? text(i) : skip(i);
        }
    }

    private int rootMember(int name, int i) {
        switch (name) {
            case MODEL:
                return model(i);
            case SERVICE_TIER:
                return serviceTier(i);
            case MAX_TOKENS:
            case MAX_COMPLETION_TOKENS:
            case MAX_OUTPUT_TOKENS:
                return outputCap(i);
            case STREAM:
                return flag(i, true);
            case STREAM_OPTIONS:
                return isObject(i) ? object(i, IN_STREAM_OPTIONS) : skip(i);
            case MESSAGES:
                return isArray(i) ? array(i, OF_MESSAGES) : skip(i);
            case TOOLS:
            case FUNCTIONS:
                return isArray(i) ? array(i, OF_TOOLS) : skip(i);
            case RESPONSE_FORMAT:
                return isObject(i) || isArray(i) ? weighed(i) : skip(i);
            case INPUT:
            case PROMPT:
            case INSTRUCTIONS:
            case SUFFIX:
            case TEXT:
                return DECLINED;
            default:
                return skip(i);
        }
    }

    private int element(int kind, int i) {
        switch (kind) {
            case OF_MESSAGES:
                if (isObject(i)) {
                    into.sawPart();
                    return object(i, IN_MESSAGE);
                }
                if (isArray(i)) {
                    into.sawPart();
                }
                return skip(i);
            case OF_CONTENT_PARTS:
                return isObject(i) ? object(i, IN_CONTENT_PART) : skip(i);
            case OF_TOOL_CALLS:
                return isObject(i) ? object(i, IN_TOOL_CALL) : skip(i);
            default: // OF_TOOLS: each definition weighed by its JSON, which the provider renders into the prompt
                if (isObject(i) || isArray(i)) {
                    into.sawPart();
                    return weighed(i);
                }
                return skip(i);
        }
    }

    /** A model name: plain ASCII text with no escape, else declined (the walk decodes it). */
    private int model(int i) {
        int close = plainTextClose(i);
        if (close != DECLINED) {
            into.sawModel(modelNamed(i + 1, close - (i + 1)));
        }
        return close == DECLINED ? DECLINED : close + 1;
    }

    /** A service tier: plain ASCII text with no escape, or null (no tier); declined otherwise (the walk reads it). */
    private int serviceTier(int i) {
        if (i < end && json[i] == 'n') {
            int next = skip(i);
            if (next != DECLINED) {
                into.sawServiceTier(null);
            }
            return next;
        }
        int close = plainTextClose(i);
        if (close != DECLINED) {
            into.sawServiceTier(new String(json, i + 1, close - (i + 1), StandardCharsets.ISO_8859_1));
        }
        return close == DECLINED ? DECLINED : close + 1;
    }

    /**
     * The closing quote of the string at {@code i} when it is plain ASCII text of at most {@value
     * #MOST_MODEL_BYTES} bytes with no escape; declined otherwise (an escape or a non-ASCII char
     * makes fewer chars than bytes).
     */
    private int plainTextClose(int i) {
        long string = JsonBytes.string(json, i, end, words);
        if (string == DECLINED) {
            return DECLINED;
        }
        int close = JsonBytes.close(string);
        int length = close - (i + 1);
        return JsonBytes.chars(string) != length || length > MOST_MODEL_BYTES ? DECLINED : close;
    }

    /** The ASCII model name at {@code json[from, from + length)}: {@link #lastModel} when it is that one. */
    private String modelNamed(int from, int length) {
        String last = lastModel;
        if (last != null && last.length() == length) {
            int k = 0;
            while (k < length && json[from + k] == last.charAt(k)) {
                k++;
            }
            if (k == length) {
                return last;
            }
        }
        String named = new String(json, from, length, StandardCharsets.ISO_8859_1);
        lastModel = named;
        return named;
    }

    /**
     * An output cap: a plain integer, or a literal that is no count; declined for what the walk
     * reads its own way (a float, a negative number, a numeric string) and for containers.
     */
    private int outputCap(int i) {
        if (i >= end) {
            return DECLINED;
        }
        byte c = json[i];
        if (c >= '0' && c <= '9') {
            int digits = JsonBytes.integerEnd(json, i, end);
            if (digits == DECLINED) {
                return DECLINED;
            }
            long n = JsonBytes.integer(json, i, digits);
            into.sawOutputCap(n <= HeaderNumbers.MAX_COUNT ? n : JsonScalars.NOT_A_COUNT);
            return digits;
        }
        if (c == 'n' || c == 't' || c == 'f') {
            return skip(i); // no count: the cap is left as it was
        }
        return DECLINED;
    }

    /** {@code stream} or {@code include_usage}: true for {@code true}, false for any other scalar; a container declined. */
    private int flag(int i, boolean stream) {
        if (isObject(i) || isArray(i)) {
            return DECLINED;
        }
        int next = skip(i);
        if (next != DECLINED) {
            boolean set = json[i] == 't';
            if (stream) {
                into.sawStream(set);
            } else {
                into.sawIncludeUsage(set);
            }
        }
        return next;
    }

    /** A value whose text the model reads: a string's chars counted; anything else passed over, as the walk counts nothing there. */
    private int text(int i) {
        if (i >= end || json[i] != '"') {
            return skip(i);
        }
        long string = JsonBytes.weighedString(json, i, end, words);
        if (string == DECLINED) {
            return DECLINED;
        }
        into.sawText(JsonBytes.chars(string));
        return JsonBytes.close(string) + 1;
    }

    /** A container weighed by the length of its JSON text, as the walk's skip weighs it. */
    private int weighed(int i) {
        int next = skip(i);
        if (next != DECLINED) {
            into.sawText(next - i);
        }
        return next;
    }

    private int skip(int i) {
        return JsonBytes.valueEnd(json, i, end, MOST_SKIPPED_DEPTH, words);
    }

    private boolean isObject(int i) {
        return i < end && json[i] == '{';
    }

    private boolean isArray(int i) {
        return i < end && json[i] == '[';
    }

    /** Which of {@link #NAMES} {@code json[from, to)} is, or {@link #OTHER}. */
    private int nameOf(int from, int to) {
        int length = to - from;
        if (length >= NAMES_OF_LENGTH.length) {
            return OTHER;
        }
        for (int name : NAMES_OF_LENGTH[length]) {
            if (JsonBytes.named(json, from, to, NAMES[name])) {
                return name;
            }
        }
        return OTHER;
    }

    private static int[][] namesByLength() {
        int longest = 0;
        for (byte[] name : NAMES) {
            longest = Math.max(longest, name.length);
        }
        int[][] byLength = new int[longest + 1][];
        for (int length = 0; length <= longest; length++) {
            int count = 0;
            for (byte[] name : NAMES) {
                count += name.length == length ? 1 : 0;
            }
            byLength[length] = new int[count];
            count = 0;
            for (int name = 0; name < NAMES.length; name++) {
                if (NAMES[name].length == length) {
                    byLength[length][count++] = name;
                }
            }
        }
        return byLength;
    }

    private static byte[] bytes(String name) {
        return name.getBytes(StandardCharsets.US_ASCII);
    }
}
