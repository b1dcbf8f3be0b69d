package dev.sluice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.agent.it.ClassFiles;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rewrite against javac's own output: a class compiled here as the libraries are (no {@code
 * -XDstringConcat=inline}), run as compiled and as rewritten, must give the same strings, and the
 * rewritten one must pass the JVM's verifier and concatenate without {@code invokedynamic}.
 */
class InlinedConcatTest {

    private static final String NAME = "sample.Concatenations";
    private static final String SOURCE = "package sample;\n"
            + "public final class Concatenations {\n"
            + "    private final String prefix;\n"
            + "    public Concatenations(String prefix) { this.prefix = prefix; }\n"
            + "    public static String everyType(int i, long l, double d, float f, char c, boolean b,\n"
            + "            byte by, short sh, String s, Object o, String none, int[] array) {\n"
            + "        return i + \"/\" + l + \"/\" + d + \"/\" + f + \"/\" + c + \"/\" + b + \"/\" + by + \"/\" + sh\n"
            + "                + \"/\" + s + \"/\" + o + \"/\" + none + \"/\" + (array == null);\n"
            + "    }\n"
            + "    public static String controlCharacters(int n) {\n"
            + "        return \"a\\u0001b\\u0002c\" + n + \"\\u0001\";\n" // javac passes these as constants
            + "    }\n"
            + "    public String withLocalsAround(long start, int count) {\n"
            + "        double scale = 1.5;\n"
            + "        StringBuilder out = new StringBuilder();\n"
            + "        for (int k = 0; k < count; k++) {\n"
            + "            String line = prefix + k + \":\" + (start + k) + \"x\" + scale;\n"
            + "            if (k % 2 == 0) { out.append(line.toUpperCase()); } else { out.append(line); }\n"
            + "            scale += start;\n" // the locals before the concatenation are still intact
            + "        }\n"
            + "        return out + \"|\" + scale + \"|\" + start + \"|\" + count;\n"
            + "    }\n"
            + "    public static String valuesOnly(String a, String b) { return a + b; }\n"
            + "}\n";

    private static byte[] compiled;

    @BeforeAll
    static void compile() throws Exception {
        compiled = compileWithJavac();
        assertThat(concatenationSites(compiled))
                .as("javac's own output concatenates through invokedynamic, or this test shows nothing")
                .isGreaterThanOrEqualTo(4);
    }

    @Test
    void theRewrittenClassBuildsTheSameStringsWithoutInvokedynamic() throws Exception {
        byte[] rewritten = InlinedConcat.rewrite(compiled);

        assertThat(rewritten).isNotNull();
        assertThat(concatenationSites(rewritten)).isZero();
        Class<?> before = new OneClassLoader(compiled).loadClass(NAME);
        Class<?> after = new OneClassLoader(rewritten).loadClass(NAME);
        Object thing = new Object() {
            @Override
            public String toString() {
                return "thing";
            }
        };
        Object[] everyType = {
            -7, Long.MIN_VALUE, 0.1 + 0.2, 1.0f / 3, 'é', true, (byte) -1, (short) 300, "text", thing, null, null
        };
        for (Class<?> type : List.of(before, after)) {
            assertThat(call(type, "everyType", everyType))
                    .isEqualTo(
                            "-7/-9223372036854775808/0.30000000000000004/0.33333334/é/true/-1/300/text/thing/null/true");
            assertThat(call(type, "controlCharacters", 42)).isEqualTo("a\u0001b\u0002c42\u0001");
            assertThat(call(type, "valuesOnly", "left", null)).isEqualTo("leftnull");
        }
        Method around = after.getMethod("withLocalsAround", long.class, int.class);
        assertThat(around.invoke(after.getConstructor(String.class).newInstance("p"), 10L, 3))
                .isEqualTo(before.getMethod("withLocalsAround", long.class, int.class)
                        .invoke(before.getConstructor(String.class).newInstance("p"), 10L, 3))
                .isEqualTo("P0:10X1.5p1:11x11.5P2:12X21.5|31.5|10|3");
    }

    @Test
    void aClassWithoutConcatenationsIsLeftAsItIs() throws Exception {
        byte[] loggerFree;
        try (var in = InlinedConcatTest.class.getResourceAsStream("/dev/sluice/agent/InlinedConcatTest.class")) {
            loggerFree = in.readAllBytes(); // compiled with -XDstringConcat=inline, as every agent module
        }
        assertThat(InlinedConcat.rewrite(loggerFree)).isNull();
    }

    private static Object call(Class<?> type, String method, Object... arguments) throws Exception {
        for (Method m : type.getMethods()) {
            if (m.getName().equals(method)) {
                return m.invoke(null, arguments);
            }
        }
        throw new NoSuchMethodException(method);
    }

    /** The invokedynamic instructions bootstrapped by {@code StringConcatFactory}. */
    private static int concatenationSites(byte[] classFile) {
        return ClassFiles.invokedynamicSites(classFile, "java/lang/invoke/StringConcatFactory");
    }

    private static byte[] compileWithJavac() throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Map<String, ByteArrayOutputStream> out = new HashMap<>();
        StandardJavaFileManager standard = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8);
        ForwardingJavaFileManager<StandardJavaFileManager> files = new ForwardingJavaFileManager<>(standard) {
            @Override
            public JavaFileObject getJavaFileForOutput(
                    Location location, String className, JavaFileObject.Kind kind, FileObject sibling) {
                return new SimpleJavaFileObject(URI.create("mem:///" + className + ".class"), kind) {
                    @Override
                    public OutputStream openOutputStream() {
                        return out.computeIfAbsent(className, k -> new ByteArrayOutputStream());
                    }
                };
            }
        };
        JavaFileObject source =
                new SimpleJavaFileObject(
                        URI.create("string:///sample/Concatenations.java"), JavaFileObject.Kind.SOURCE) {
                    @Override
                    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                        return SOURCE;
                    }
                };
        List<String> options = new ArrayList<>(List.of("--release", "11", "-encoding", "UTF-8"));
        Boolean ok =
                javac.getTask(null, files, null, options, null, List.of(source)).call();
        assertThat(ok).as("the sample compiles").isTrue();
        return out.get(NAME).toByteArray();
    }

    /** Defines the sample from the given bytes; everything else from the test's loader. */
    private static final class OneClassLoader extends ClassLoader {
        private final byte[] bytes;

        OneClassLoader(byte[] bytes) {
            super(InlinedConcatTest.class.getClassLoader());
            this.bytes = bytes;
        }

        @Override
        protected Class<?> findClass(String className) throws ClassNotFoundException {
            if (className.equals(NAME)) {
                return defineClass(className, bytes, 0, bytes.length);
            }
            throw new ClassNotFoundException(className);
        }
    }
}
