package dev.sluice.agent.weave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.instrumentation.api.MethodSelector;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Weaves {@link WeaveTarget} with each advice shape, defines the result in a fresh class loader
 * (so the JVM's verifier checks every frame the weaver wrote) and calls it.
 */
class ClassWeaverTest {

    private static final String TARGET = WeaveTarget.class.getName();

    @BeforeEach
    void reset() {
        WeaveRecorder.reset();
    }

    @Test
    void callHookSeesTheCallAndLetsItRun() throws Throwable {
        Object target = woven(MethodSelector.named("greet"), WeaveTestAdvice.Replace.class);

        assertThat(call(target, "greet", "ab", 2L, 2.5)).isEqualTo("abab+");
        assertThat(call(target, "greet", "x", 1L, -1.0)).isEqualTo("x!");

        assertThat(WeaveRecorder.bodyRuns).isEqualTo(2);
        assertThat(WeaveRecorder.seen.subList(0, 5))
                .containsExactly(target.getClass(), "greet", "target", "target", Arrays.asList("ab", 2L, 2.5));
        assertThat(target.getClass().getClassLoader()).isInstanceOf(OneClassLoader.class);
    }

    @Test
    void callHookReplacesTheCallWithoutRunningTheBody() throws Throwable {
        Object target = woven(MethodSelector.named("greet"), WeaveTestAdvice.Replace.class);
        WeaveRecorder.replacement = "replaced";

        assertThat(call(target, "greet", "ab", 2L, 2.5)).isEqualTo("replaced");
        assertThat(WeaveRecorder.bodyRuns).isZero();
    }

    @Test
    void callHookStillThrowsAndMayReplaceAThrowingCall() throws Throwable {
        Object target = woven(MethodSelector.named("failWith"), WeaveTestAdvice.Replace.class);

        assertThatThrownBy(() -> call(target, "failWith", "boom"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
        WeaveRecorder.replacement = "anything";
        assertThat(call(target, "failWith", "boom")).isEqualTo("anything");
        assertThat(WeaveRecorder.bodyRuns).isEqualTo(1);
    }

    @Test
    void adviceThatThrowsChangesNothing() throws Throwable {
        Object target =
                woven(MethodSelector.named("count").or(MethodSelector.named("fail")), WeaveTestAdvice.Throwing.class);

        assertThat(call(target, "count", 5)).isEqualTo(10);
        assertThatThrownBy(() -> call(target, "fail", "boom"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
        assertThat(WeaveRecorder.seen).containsExactly("enter", "returned", "enter", "threw");
    }

    @Test
    void exitAdviceReadsTheReturnedValueWithLocalsOfItsOwn() throws Throwable {
        Object target = woven(MethodSelector.named("count"), WeaveTestAdvice.ReadReturn.class);

        assertThat(call(target, "count", 7)).isEqualTo(21);
        assertThat(WeaveRecorder.seen).containsExactly("consistent");
    }

    @Test
    void exitAdviceMayTurnAThrowIntoAReturn() throws Throwable {
        Object target = woven(MethodSelector.named("fail"), WeaveTestAdvice.Swallow.class);

        assertThatThrownBy(() -> call(target, "fail", "kept")).hasMessage("kept");
        WeaveRecorder.swallow = true;
        call(target, "fail", "swallowed");
        assertThat(WeaveRecorder.seen).hasSize(2).allMatch(t -> t instanceof IllegalStateException);
    }

    @Test
    void aReturnValueOfTheWrongTypeFailsTheAdviceNotTheMethod() throws Throwable {
        Object target = woven(MethodSelector.named("greet"), WeaveTestAdvice.WrongReturnType.class);

        assertThat(call(target, "greet", "ab", 1L, 0.5)).isEqualTo("ab");
    }

    @Test
    void enterAdviceMayRewriteAnArgument() throws Throwable {
        Object target = woven(MethodSelector.named("decide"), WeaveTestAdvice.Negate.class);

        assertThat(call(target, "decide", true)).isEqualTo(false);
        assertThat(call(target, "decide", false)).isEqualTo(true);
    }

    @Test
    void aClassWithNoSelectedMethodIsLeftAlone() throws Throwable {
        byte[] original = classFile(TARGET);
        assertThat(ClassWeaver.weave(
                        original, declarations(MethodSelector.named("absent"), WeaveTestAdvice.Negate.class)))
                .isNull();
    }

    @Test
    void anAdviceTheClassCannotTakeIsRefusedWithItsReason() throws Throwable {
        byte[] original = classFile(TARGET);
        assertThatThrownBy(() -> ClassWeaver.weave(
                        original, declarations(MethodSelector.named("count"), WeaveTestAdvice.MissingField.class)))
                .isInstanceOf(WeaveException.class)
                .hasMessageContaining("absent")
                .hasMessageContaining("WeaveTarget");
    }

    @Test
    void enterAdviceReadingTheReturnValueIsRefused() throws Throwable {
        byte[] original = classFile(TARGET);
        assertThatThrownBy(() -> ClassWeaver.weave(
                        original, declarations(MethodSelector.named("greet"), WeaveTestAdvice.EnterReadsReturn.class)))
                .isInstanceOf(WeaveException.class)
                .hasMessageContaining("enter advice cannot read RETURN");
    }

    @Test
    void adviceWithALambdaIsRefusedWhenItIsRead() throws Throwable {
        String name = WeaveTestAdvice.WithLambda.class.getName();
        byte[] advice = classFile(name);
        assertThatThrownBy(() -> AdviceClass.read(name, advice))
                .isInstanceOf(WeaveException.class)
                .hasMessageContaining("invokedynamic");
    }

    @Test
    void twoAdviceClassesOnOneMethodAreRefused() throws Throwable {
        byte[] original = classFile(TARGET);
        List<ClassWeaver.Declaration> both = new java.util.ArrayList<>();
        both.addAll(declarations(MethodSelector.named("count"), WeaveTestAdvice.ReadReturn.class));
        both.addAll(declarations(MethodSelector.named("count"), WeaveTestAdvice.Throwing.class));
        assertThatThrownBy(() -> ClassWeaver.weave(original, both))
                .isInstanceOf(WeaveException.class)
                .hasMessageContaining("two advice classes");
    }

    private static Object woven(MethodSelector methods, Class<?> advice) throws Exception {
        byte[] bytes = ClassWeaver.weave(classFile(TARGET), declarations(methods, advice));
        assertThat(bytes).isNotNull();
        Class<?> type = new OneClassLoader(TARGET, bytes).loadClass(TARGET);
        return type.getConstructor().newInstance();
    }

    private static List<ClassWeaver.Declaration> declarations(MethodSelector methods, Class<?> advice)
            throws IOException {
        return Collections.singletonList(
                new ClassWeaver.Declaration(methods, AdviceClass.read(advice.getName(), classFile(advice.getName()))));
    }

    private static Object call(Object target, String name, Object... arguments) throws Throwable {
        for (Method method : target.getClass().getMethods()) {
            if (method.getName().equals(name)) {
                try {
                    return method.invoke(target, arguments);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        }
        throw new AssertionError("no method " + name);
    }

    private static byte[] classFile(String name) throws IOException {
        try (InputStream in =
                ClassWeaverTest.class.getClassLoader().getResourceAsStream(name.replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Defines one class from given bytes (verified, as every non-bootstrap class is); the rest from the parent. */
    static final class OneClassLoader extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        OneClassLoader(String name, byte[] bytes) {
            super(ClassWeaverTest.class.getClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
            if (!className.equals(name)) {
                return super.loadClass(className, resolve);
            }
            synchronized (getClassLoadingLock(className)) {
                Class<?> loaded = findLoadedClass(className);
                return loaded != null ? loaded : defineClass(className, bytes, 0, bytes.length);
            }
        }
    }
}
