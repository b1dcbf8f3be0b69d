package dev.sluice.core.provider;

import dev.sluice.core.retry.WaitHints;
import dev.sluice.core.testing.Gen;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Generators of what providers (and broken proxies in front of them) put on the wire: header
 * values, durations, instants, error bodies and chunkings. Each mixes realistic values, so the
 * happy paths run too, with the malformed ones the parsers must survive.
 */
public final class ParserInputs {

    /** The wall clock every adapter and every parse sees. */
    public static final long NOW = Instant.parse("2026-11-29T10:14:00Z").toEpochMilli();

    /** Adapters of every kind on the fixed clock, in {@link ProviderAdapters#KINDS} order. */
    public static final List<ProviderAdapter> ADAPTERS;

    static {
        AdapterSettings settings =
                AdapterSettings.builder().wallClockMillis(() -> NOW).build();
        List<ProviderAdapter> all = new ArrayList<>();
        for (String kind : ProviderAdapters.KINDS) {
            all.add(ProviderAdapters.forKind(kind, settings));
        }
        ADAPTERS = List.copyOf(all);
    }

    /** Numbers as text that no parser should take at face value. */
    static final String[] ODD_NUMBERS = {
        "-1",
        "-0",
        "0",
        "-5",
        "-1.5",
        "NaN",
        "-NaN",
        "Infinity",
        "-Infinity",
        "1e308",
        "1E308",
        "-1e308",
        "1e-308",
        "4.9e-324",
        "99999999999999999999",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "18446744073709551616",
        "9000000000000000000",
        "8999999999999999999",
        "0x10",
        "1_000",
        "1,000",
        "\u0661\u0662\u0663",
        "12abc",
        "",
        " ",
        "1.5.2",
        ".",
        "+5",
        "5.",
        ".5",
        "\t7\t",
        "0000000000000000000000000000001",
        "1e3",
        "true",
        "null",
        "\"5\"",
        "9".repeat(400),
        "1".repeat(5000)
    };

    /** Durations in Go's and protobuf's forms that are not valid, or are extreme. */
    static final String[] ODD_DURATIONS = {
        "1m2.5",
        "-5s",
        "-1m2.5s",
        "5x",
        "1.2.3s",
        "s",
        "ms",
        "1 s",
        "1s ",
        " 1s",
        "\u221es",
        "NaNs",
        "Infinitys",
        "1e3s",
        "99999999999h",
        "9999999999999999999999h",
        "1h1h1h",
        "0.000000001ns",
        "1ns",
        "1us",
        "1\u00b5s",
        "1\u03bcs",
        ".5s",
        "5.s",
        "0",
        "00",
        "+3s",
        "++3s",
        "3S",
        "3MS",
        "1m-1s",
        "PT1M",
        "1:30",
        "1d",
        "1w",
        "-0s",
        "0s0ms",
        "1s".repeat(20_000),
        "1.5m".repeat(5_000),
        "9".repeat(500) + "s"
    };

    /** Instants and dates that are not valid RFC 3339 / HTTP dates. */
    static final String[] ODD_INSTANTS = {
        "2026-13-01T00:00:00Z",
        "2026-02-30T00:00:00Z",
        "2026-11-29T25:00:00Z",
        "2026-11-29T10:15:00",
        "2026-11-29",
        "10:15:00Z",
        "2026-11-29T10:15:00+25:00",
        "2026-11-29T10:15:00+5",
        "+999999999-12-31T23:59:59Z",
        "-999999999-01-01T00:00:00Z",
        "+292278994-08-17T07:12:55.807Z",
        "-292275055-05-16T16:47:04.192Z",
        "-292275055-05-17T00:00:00Z",
        "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999999999+14:00",
        "2026-11-29T10:15:00.123456789012Z",
        "Sun, 29 Nov 2026 10:15:00",
        "Mon, 29 Nov 2026 10:15:00 GMT",
        "Sun, 31 Feb 2026 10:15:00 GMT",
        "Sun, 29 Nov 99999 10:15:00 GMT",
        "Thu, 01 Jan 1970 00:00:00 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "2026-11-29T10:15:00Z".repeat(1000)
    };

    private ParserInputs() {}

    // ---------------------------------------------------------------- scalars on the wire

    /** Any text: unicode, control characters, long runs. */
    public static Gen<String> junk() {
        return Gen.oneOf(
                Gen.anyStrings(40),
                Gen.strings(Gen.chars(' ', '~'), 0, 60),
                Gen.strings(Gen.charsOf("0123456789.-+eEsmhnu:TZ "), 0, 30),
                Gen.strings(Gen.charsOf("01.x"), 500, 3000));
    }

    /** A count as a header or JSON string sends it: mostly plain, sometimes odd, sometimes junk. */
    public static Gen<String> countText() {
        return Gen.<String>weighted(6, Gen.longs(0, 100_000_000).map(String::valueOf))
                .or(1, Gen.longs(0, 100_000).map(v -> v + ".0"))
                .or(1, Gen.longs(0, 100_000).map(v -> " " + v + " "))
                .or(1, Gen.longs().map(String::valueOf))
                .or(1, Gen.doubles().map(String::valueOf))
                .or(3, Gen.of(ODD_NUMBERS))
                .or(1, junk());
    }

    /** A valid Go duration with the milliseconds it stands for (exact, rounded up, clamped). */
    public static Gen<Duration> goDuration() {
        Gen<String> units = Gen.of("h", "m", "s", "ms", "us", "\u00b5s", "ns");
        Gen<Integer> upTo999 = Gen.ints(0, 999);
        Gen<String> value = Gen.oneOf(
                Gen.ints(0, 120).map(String::valueOf),
                random -> upTo999.next(random) + "." + upTo999.next(random),
                Gen.longs(0, 99_999_999_999L).map(String::valueOf));
        Gen<String> term = random -> value.next(random) + units.next(random);
        Gen<String> common = Gen.of(
                "1s", "6m0s", "20ms", "1m2.5s", "7.66s", "84ms", "0s", "1h2m3s", "29.083414095s", "27.4s", "0.5s");
        return Gen.oneOf(common, term.list(1, 4).map(l -> String.join("", l)))
                .map(text -> new Duration(text, exactMillis(text)));
    }

    /** A Go duration's text and the wait it means. */
    public static final class Duration {
        public final String text;
        public final long millis;

        Duration(String text, long millis) {
            this.text = text;
            this.millis = millis;
        }

        @Override
        public String toString() {
            return text + " (" + millis + " ms)";
        }
    }

    /** What a Go duration means in milliseconds, computed exactly: rounded up, clamped to the hint maximum. */
    static long exactMillis(String goDuration) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                        "(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|ms|h|m|s)")
                .matcher(goDuration);
        BigDecimal nanos = BigDecimal.ZERO;
        while (m.find()) {
            long unit;
            switch (m.group(2)) {
                case "ns":
                    unit = 1;
                    break;
                case "us":
                case "\u00b5s":
                    unit = 1_000;
                    break;
                case "ms":
                    unit = 1_000_000;
                    break;
                case "s":
                    unit = 1_000_000_000L;
                    break;
                case "m":
                    unit = 60_000_000_000L;
                    break;
                default:
                    unit = 3_600_000_000_000L;
            }
            nanos = nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)));
        }
        BigDecimal millis = nanos.divide(BigDecimal.valueOf(1_000_000), 0, RoundingMode.CEILING);
        return millis.compareTo(BigDecimal.valueOf(WaitHints.MAX_MILLIS)) >= 0
                ? WaitHints.MAX_MILLIS
                : millis.longValueExact();
    }

    /** Durations: valid ones, odd ones, numbers, junk. */
    public static Gen<String> durationText() {
        return Gen.<String>weighted(5, goDuration().map(d -> d.text))
                .or(3, Gen.of(ODD_DURATIONS))
                .or(1, countText())
                .or(1, junk());
    }

    /** Epoch milliseconds: near now, across the calendar, and at the edges of a long. */
    public static Gen<Long> epochMillis() {
        return Gen.<Long>weighted(5, Gen.longs(NOW - 86_400_000L, NOW + 86_400_000L))
                .or(2, Gen.longs(-62_135_596_800_000L, 253_402_300_799_999L))
                .or(1, Gen.longs())
                .or(
                        1,
                        Gen.of(
                                Long.MIN_VALUE,
                                Long.MIN_VALUE + 1,
                                Long.MAX_VALUE,
                                Long.MAX_VALUE - 1,
                                Long.MIN_VALUE + NOW - 1,
                                Long.MIN_VALUE + NOW,
                                Long.MIN_VALUE + NOW + 1,
                                0L,
                                -1L));
    }

    /** An RFC 3339 instant in any offset and style, or a malformed one. */
    public static Gen<String> rfc3339() {
        Gen<Long> epochMillis = epochMillis();
        Gen<ZoneOffset> offsets = Gen.of(
                ZoneOffset.UTC,
                ZoneOffset.ofHoursMinutes(5, 30),
                ZoneOffset.ofHours(-8),
                ZoneOffset.ofHours(14),
                ZoneOffset.ofHours(-12));
        Gen<Integer> styles = Gen.ints(0, 3);
        Gen<String> valid = random -> {
            long ms = epochMillis.next(random);
            ZoneOffset offset = offsets.next(random);
            int style = styles.next(random);
            String s = Instant.ofEpochMilli(ms).atOffset(offset).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
            switch (style) {
                case 1:
                    return s.toLowerCase(java.util.Locale.ROOT);
                case 2:
                    return s.length() > 10 && s.charAt(10) == 'T' ? s.substring(0, 10) + ' ' + s.substring(11) : s;
                default:
                    return s;
            }
        };
        return Gen.<String>weighted(5, valid)
                .or(2, mangled(valid))
                .or(2, Gen.of(ODD_INSTANTS))
                .or(1, junk());
    }

    /** An HTTP date (RFC 1123), or a malformed one. */
    public static Gen<String> httpDate() {
        Gen<String> valid = Gen.longs(-62_135_596_800_000L, 253_402_300_799_999L)
                .map(ms ->
                        Instant.ofEpochMilli(ms).atZone(ZoneOffset.UTC).format(DateTimeFormatter.RFC_1123_DATE_TIME));
        Gen<String> nearNow = Gen.longs(NOW - 3_600_000, NOW + 3_600_000)
                .map(ms ->
                        Instant.ofEpochMilli(ms).atZone(ZoneOffset.UTC).format(DateTimeFormatter.RFC_1123_DATE_TIME));
        return Gen.<String>weighted(3, nearNow)
                .or(2, valid)
                .or(2, mangled(valid))
                .or(2, Gen.of(ODD_INSTANTS));
    }

    /** The texts cut short, or with one character replaced. */
    static Gen<String> mangled(Gen<String> texts) {
        Gen<Integer> ats = Gen.ints(0, 1 << 20);
        Gen<Character> chars = Gen.charsOf("0987:-+TZ .x\u0000");
        return random -> {
            String s = texts.next(random);
            int at = ats.next(random);
            char c = chars.next(random);
            boolean cut = random.nextBoolean();
            if (s.isEmpty()) {
                return s;
            }
            int i = at % s.length();
            return cut ? s.substring(0, i) : s.substring(0, i) + c + s.substring(i + 1);
        };
    }

    /** Any value a header might carry. */
    public static Gen<String> anyHeaderValue() {
        return Gen.oneOf(
                countText(),
                durationText(),
                rfc3339(),
                httpDate(),
                junk(),
                Gen.of("true", "false", "TRUE", "False", "yes", "1", "0", "", "-1"));
    }

    // ---------------------------------------------------------------- headers

    /**
     * Headers with these names in any case, some repeated, each value drawn from its name's kind
     * ({@code kinds.get(kindOf(name))}) or now and then any junk a header may carry.
     */
    public static Gen<Headers> headers(
            List<String> names, java.util.function.ToIntFunction<String> kindOf, List<Gen<String>> kinds) {
        Gen<String> odd = anyHeaderValue();
        List<Gen<String[]>> byKind = new ArrayList<>();
        for (int k = 0; k < kinds.size(); k++) {
            int kind = k;
            List<String> ofKind = new ArrayList<>();
            for (String n : names) {
                if (kindOf.applyAsInt(n) == kind) {
                    ofKind.add(n);
                }
            }
            Gen<String> name = Gen.of(ofKind.toArray(new String[0]));
            Gen<String> value = Gen.<String>weighted(4, kinds.get(kind)).or(1, odd);
            byKind.add(random -> new String[] {cased(name.next(random), random.nextInt(3)), value.next(random)});
        }
        Gen<String[]> pair = random -> byKind.get(random.nextInt(byKind.size())).next(random);
        return pair.list(0, 2 * names.size()).map(pairs -> {
            Map<String, List<String>> map = new LinkedHashMap<>();
            for (String[] p : pairs) {
                map.computeIfAbsent(p[0], k -> new ArrayList<>()).add(p[1]);
            }
            return Headers.of(map);
        });
    }

    static String cased(String name, int casing) {
        switch (casing) {
            case 1:
                return name.toUpperCase(java.util.Locale.ROOT);
            case 2:
                return Character.toUpperCase(name.charAt(0)) + name.substring(1);
            default:
                return name;
        }
    }

    /** Headers from name/value pairs; a name given twice has two values. */
    public static Headers headersOf(String... nameValues) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            map.computeIfAbsent(nameValues[i], k -> new ArrayList<>()).add(nameValues[i + 1]);
        }
        return Headers.of(map);
    }

    // ---------------------------------------------------------------- bodies

    /** A JSON string literal of any text. */
    public static String json(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** A count as JSON puts it: a number, a float, a numeric string, or something that is not a count. */
    public static Gen<String> jsonCount() {
        return Gen.<String>weighted(6, Gen.longs(0, 10_000_000).map(String::valueOf))
                .or(1, Gen.longs(0, 10_000_000).map(v -> v + ".0"))
                .or(1, Gen.longs(0, 10_000_000).map(v -> "\"" + v + "\""))
                .or(
                        2,
                        Gen.of(
                                "-1",
                                "-5",
                                "1e308",
                                "-1e308",
                                "1e400",
                                "99999999999999999999",
                                "9223372036854775807",
                                "9223372036854775808",
                                "8999999999999999999",
                                "8000000000000000000",
                                "4611686018427387904",
                                "1000000000000001",
                                "null",
                                "true",
                                "\"NaN\"",
                                "\"Infinity\"",
                                "\"-1\"",
                                "\"1e308\"",
                                "\"x\"",
                                "[]",
                                "{}",
                                "0.5",
                                "1E3",
                                "-0",
                                "\"" + "9".repeat(60) + "\"",
                                "1" + "0".repeat(999),
                                "1" + "0".repeat(1500)))
                .or(1, Gen.longs().map(String::valueOf))
                .or(1, Gen.doubles().map(d -> Double.isFinite(d) ? String.valueOf(d) : "0"));
    }

    /** Body bytes that are not what a parser expects: empty, HTML, binary, truncated, deep, huge. */
    public static Gen<byte[]> brokenBody() {
        return Gen.oneOf(
                random -> new byte[0],
                Gen.of(
                                "<html><body><h1>502 Bad Gateway</h1></body></html>",
                                "<!DOCTYPE html><html><head><title>429 Too Many Requests</title></head></html>",
                                "upstream connect error or disconnect/reset before headers",
                                "null",
                                "[]",
                                "[[[]]]",
                                "{}",
                                "\"error\"",
                                "42",
                                "{\"error\":null}",
                                "{\"error\":[]}",
                                "{\"error\":42}",
                                "{\"error\":{\"message\":{\"nested\":1},\"code\":[429]}}",
                                "{\"usage\":\"lots\"}",
                                "\uFEFF{\"error\":{\"message\":\"try again in 5s\"}}",
                                "{\"a\":1}{\"b\":2}",
                                "{" + "\"e\":{".repeat(5000) + "}".repeat(5000) + "}",
                                "[".repeat(100_000))
                        .map(s -> s.getBytes(StandardCharsets.UTF_8)),
                Gen.byteArrays(2000),
                Gen.anyStrings(200).map(s -> s.getBytes(StandardCharsets.UTF_8)));
    }

    /** The bodies cut at any point, or with one byte replaced. */
    public static Gen<byte[]> damaged(Gen<byte[]> bodies) {
        Gen<Integer> ats = Gen.ints(0, Integer.MAX_VALUE);
        Gen<Byte> bytes = Gen.bytes();
        return random -> {
            byte[] body = bodies.next(random);
            int at = ats.next(random);
            byte b = bytes.next(random);
            boolean cut = random.nextBoolean();
            if (body.length == 0) {
                return body;
            }
            int i = at % body.length;
            if (cut) {
                return java.util.Arrays.copyOf(body, i);
            }
            byte[] copy = body.clone();
            copy[i] = b;
            return copy;
        };
    }

    /**
     * Where to cut a body into chunks, as offsets drawn for any length: a few anywhere, or (rarely,
     * for bodies up to 4 KiB) between every byte. {@link #cutsFor} fits them to a body.
     */
    public static Gen<int[]> cuts() {
        Gen<int[]> some = Gen.ints(0, Integer.MAX_VALUE)
                .list(0, 12)
                .map(l -> l.stream().mapToInt(Integer::intValue).toArray());
        return Gen.<int[]>weighted(12, some).or(1, Gen.just(EVERY_BYTE));
    }

    private static final int[] EVERY_BYTE = {-1};

    /** The drawn cuts as sorted offsets into a body of this length. */
    public static int[] cutsFor(int[] drawn, int length) {
        if (drawn == EVERY_BYTE || (drawn.length == 1 && drawn[0] == -1)) {
            return length > 4096
                    ? new int[0]
                    : java.util.stream.IntStream.range(1, Math.max(1, length)).toArray();
        }
        return java.util.Arrays.stream(drawn)
                .map(c -> c % (length + 1))
                .sorted()
                .toArray();
    }

    /** Feeds the body to the parser in chunks cut at the given offsets (some passed as sub-ranges of a larger array), then finishes it. */
    public static UsageParser feed(UsageParser parser, byte[] body, int[] cuts) {
        int from = 0;
        boolean padded = false;
        for (int cut : cuts) {
            chunk(parser, body, from, cut - from, padded = !padded);
            from = cut;
        }
        chunk(parser, body, from, body.length - from, !padded);
        parser.finish();
        return parser;
    }

    private static void chunk(UsageParser parser, byte[] body, int from, int length, boolean asSubRange) {
        if (asSubRange) {
            byte[] framed = new byte[length + 7];
            java.util.Arrays.fill(framed, (byte) '\n'); // bytes outside the range must never be read
            System.arraycopy(body, from, framed, 3, length);
            parser.accept(framed, 3, length);
        } else {
            parser.accept(java.util.Arrays.copyOfRange(body, from, from + length), 0, length);
        }
    }

    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
