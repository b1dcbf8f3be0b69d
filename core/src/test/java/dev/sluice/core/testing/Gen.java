package dev.sluice.core.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * A way to draw a random value from a {@link SplittableRandom}: the generators behind the
 * {@link PropertyRun properties}. The same random state always draws the same value, so a seed
 * replays a run. Ranges draw their ends and lengths their extremes now and then, where
 * off-by-one faults live.
 */
@FunctionalInterface
public interface Gen<T> {

    /** The next value. */
    T next(SplittableRandom random);

    /** This generator's values passed through {@code f}. */
    default <R> Gen<R> map(Function<? super T, ? extends R> f) {
        return random -> f.apply(next(random));
    }

    /** Lists of {@code min} to {@code max} of this generator's values. */
    default Gen<List<T>> list(int min, int max) {
        return random -> {
            int size = length(random, min, max);
            List<T> list = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                list.add(next(random));
            }
            return list;
        };
    }

    /** Always {@code value}. */
    static <T> Gen<T> just(T value) {
        return random -> value;
    }

    /** One of the values, each as likely. */
    @SafeVarargs
    static <T> Gen<T> of(T... values) {
        T[] copy = values.clone();
        return random -> copy[random.nextInt(copy.length)];
    }

    /** A value of one of the generators, each as likely. */
    @SafeVarargs
    static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
        Gen<? extends T>[] copy = gens.clone();
        return random -> copy[random.nextInt(copy.length)].next(random);
    }

    /** A value of {@code gen} with the given weight; add others with {@link Weighted#or}. */
    static <T> Weighted<T> weighted(int weight, Gen<? extends T> gen) {
        return new Weighted<T>(new int[0], List.of()).or(weight, gen);
    }

    /** True or false. */
    static Gen<Boolean> booleans() {
        return SplittableRandom::nextBoolean;
    }

    /** A long in {@code [min, max]}; now and then one of its ends, or 0 where it lies inside. */
    static Gen<Long> longs(long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException(min + " > " + max);
        }
        return random -> {
            switch (random.nextInt(16)) {
                case 0:
                    return min;
                case 1:
                    return max;
                case 2:
                    return min <= 0 && 0 <= max ? 0L : min;
                default:
                    if (max < Long.MAX_VALUE) {
                        return random.nextLong(min, max + 1);
                    }
                    return min == Long.MIN_VALUE ? random.nextLong() : random.nextLong(min, max); // max: case 1
            }
        };
    }

    /** Any long, its ends included. */
    static Gen<Long> longs() {
        return longs(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** An int in {@code [min, max]}; now and then one of its ends. */
    static Gen<Integer> ints(int min, int max) {
        return longs(min, max).map(Long::intValue);
    }

    /** Any finite double: every exponent as likely, so tiny and huge ones too, and now and then 0 or an end. */
    static Gen<Double> doubles() {
        return random -> {
            if (random.nextInt(16) == 0) {
                return new double[] {
                            0.0,
                            -0.0,
                            Double.MIN_VALUE,
                            -Double.MIN_VALUE,
                            Double.MAX_VALUE,
                            -Double.MAX_VALUE,
                            1.0,
                            -1.0
                        }
                        [random.nextInt(8)];
            }
            double d;
            do {
                d = Double.longBitsToDouble(random.nextLong());
            } while (!Double.isFinite(d));
            return d;
        };
    }

    /** Any byte. */
    static Gen<Byte> bytes() {
        return random -> (byte) random.nextInt(256);
    }

    /** Byte arrays of up to {@code max} bytes, any values. */
    static Gen<byte[]> byteArrays(int max) {
        return random -> {
            byte[] bytes = new byte[length(random, 0, max)];
            random.nextBytes(bytes);
            return bytes;
        };
    }

    /** One of the characters of {@code alphabet}. */
    static Gen<Character> charsOf(String alphabet) {
        return random -> alphabet.charAt(random.nextInt(alphabet.length()));
    }

    /** A char in {@code [from, to]}. */
    static Gen<Character> chars(char from, char to) {
        return random -> (char) random.nextInt(from, to + 1);
    }

    /**
     * Any UTF-16 char: half of them anywhere in {@code [\u0000, \uffff]} (lone surrogates, control
     * and private-use characters included), a quarter ASCII, a quarter starting a pair that
     * {@link #strings} completes into a supplementary character.
     */
    static Gen<Character> anyChar() {
        return random -> {
            switch (random.nextInt(4)) {
                case 0:
                    return (char) random.nextInt(0x80);
                case 1:
                    return Character.highSurrogate(
                            random.nextInt(Character.MIN_SUPPLEMENTARY_CODE_POINT, Character.MAX_CODE_POINT + 1));
                default:
                    return (char) random.nextInt(0x10000);
            }
        };
    }

    /**
     * Strings of {@code min} to {@code max} chars drawn from {@code chars}; a high surrogate drawn
     * is half the time followed by a low one, so strings hold whole supplementary characters too.
     */
    static Gen<String> strings(Gen<Character> chars, int min, int max) {
        return random -> {
            int length = length(random, min, max);
            StringBuilder b = new StringBuilder(length);
            while (b.length() < length) {
                char c = chars.next(random);
                b.append(c);
                if (Character.isHighSurrogate(c) && b.length() < length && random.nextBoolean()) {
                    b.append((char) random.nextInt(Character.MIN_LOW_SURROGATE, Character.MAX_LOW_SURROGATE + 1));
                }
            }
            return b.toString();
        };
    }

    /** Strings of up to {@code max} of any chars. */
    static Gen<String> anyStrings(int max) {
        return strings(anyChar(), 0, max);
    }

    /** A length in {@code [min, max]}: now and then an extreme, otherwise any. */
    private static int length(SplittableRandom random, int min, int max) {
        switch (random.nextInt(10)) {
            case 0:
                return min;
            case 1:
                return max;
            default:
                return random.nextInt(min, max + 1);
        }
    }

    /** Generators chosen by weight. */
    final class Weighted<T> implements Gen<T> {
        private final int[] cumulative;
        private final List<Gen<? extends T>> gens;

        private Weighted(int[] cumulative, List<Gen<? extends T>> gens) {
            this.cumulative = cumulative;
            this.gens = gens;
        }

        /** These generators and {@code gen} with the given weight. */
        public Weighted<T> or(int weight, Gen<? extends T> gen) {
            if (weight <= 0) {
                throw new IllegalArgumentException("weight " + weight);
            }
            int[] c = Arrays.copyOf(cumulative, cumulative.length + 1);
            c[c.length - 1] = (cumulative.length == 0 ? 0 : cumulative[cumulative.length - 1]) + weight;
            List<Gen<? extends T>> g = new ArrayList<>(gens);
            g.add(gen);
            return new Weighted<>(c, List.copyOf(g));
        }

        @Override
        public T next(SplittableRandom random) {
            int pick = random.nextInt(cumulative[cumulative.length - 1]);
            int i = 0;
            while (pick >= cumulative[i]) {
                i++;
            }
            return gens.get(i).next(random);
        }
    }
}
