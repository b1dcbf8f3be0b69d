package dev.sluice.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.agent.weaving.WeaveRecorder;
import dev.sluice.agent.weaving.WeaveTarget;
import dev.sluice.agent.weaving.WeaveTestAdvice;
import dev.sluice.instrumentation.api.InstrumentationModule;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.matcher.ElementMatcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Weaves {@link WeaveTarget} (and hand-made classes) as the agent does, defines the result in a
 * fresh class loader, so the JVM's verifier checks every frame ByteBuddy wrote, and calls it.
 */
class AdviceWeaverTest {

    private static final String TARGET = WeaveTarget.class.getName();

    private final AdviceWeaver weaver = new AdviceWeaver(AdviceWeaverTest.class.getClassLoader());

    @BeforeEach
    void reset() {
        WeaveRecorder.reset();
    }

    @Test
    void callHookSeesTheCallAndLetsItRun() throws Throwable {
        Object target = woven(classFile(TARGET), named("greet"), WeaveTestAdvice.Replace.class);

        assertThat(call(target, "greet", "ab", 2L, 2.5)).isEqualTo("abab+");
        assertThat(call(target, "greet", "x", 1L, -1.0)).isEqualTo("x!");

        assertThat(WeaveRecorder.bodyRuns).isEqualTo(2);
        assertThat(WeaveRecorder.seen.subList(0, 5))
                .containsExactly(target.getClass(), "greet", "target", "target", Arrays.asList("ab", 2L, 2.5));
        assertThat(target.getClass().getClassLoader()).isInstanceOf(OneClassLoader.class);
    }

    @Test
    void callHookReplacesTheCallWithoutRunningTheBody() throws Throwable {
        Object target = woven(classFile(TARGET), named("greet"), WeaveTestAdvice.Replace.class);
        WeaveRecorder.replacement = "replaced";

        assertThat(call(target, "greet", "ab", 2L, 2.5)).isEqualTo("replaced");
        assertThat(WeaveRecorder.bodyRuns).isZero();
    }

    @Test
    void callHookStillThrowsAndMayReplaceAThrowingCall() throws Throwable {
        Object target = woven(classFile(TARGET), named("failWith"), WeaveTestAdvice.Replace.class);

        assertThatThrownBy(() -> call(target, "failWith", "boom"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
        WeaveRecorder.replacement = "anything";
        assertThat(call(target, "failWith", "boom")).isEqualTo("anything");
        assertThat(WeaveRecorder.bodyRuns).isEqualTo(1);
    }

    @Test
    void adviceThatThrowsChangesNothing() throws Throwable {
        Object target = woven(classFile(TARGET), named("count").or(named("fail")), WeaveTestAdvice.Throwing.class);

        assertThat(call(target, "count", 5)).isEqualTo(10);
        assertThatThrownBy(() -> call(target, "fail", "boom"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
        assertThat(WeaveRecorder.seen).containsExactly("enter", "returned", "enter", "threw");
    }

    @Test
    void exitAdviceReadsTheReturnedValueWithLocalsOfItsOwn() throws Throwable {
        Object target = woven(classFile(TARGET), named("count"), WeaveTestAdvice.ReadReturn.class);

        assertThat(call(target, "count", 7)).isEqualTo(21);
        assertThat(WeaveRecorder.seen).containsExactly("consistent");
    }

    /** ByteBuddy copies the arguments after the enter advice: the exit advice sees them as the body got them. */
    @Test
    void exitAdviceReadsAnArgumentAsTheBodyGotItNotAsTheBodyLeftIt() throws Throwable {
        Object target = woven(classFile(TARGET), named("reassign"), WeaveTestAdvice.ReadArgumentOnExit.class);

        assertThat(call(target, "reassign", "low")).isEqualTo("LOW");
        assertThat(WeaveRecorder.seen).containsExactly("low", "LOW");
    }

    @Test
    void exitAdviceMayTurnAThrowIntoAReturn() throws Throwable {
        Object target = woven(classFile(TARGET), named("fail"), WeaveTestAdvice.Swallow.class);

        assertThatThrownBy(() -> call(target, "fail", "kept")).hasMessage("kept");
        WeaveRecorder.swallow = true;
        call(target, "fail", "swallowed");
        assertThat(WeaveRecorder.seen).hasSize(2).allMatch(t -> t instanceof IllegalStateException);
    }

    @Test
    void aReturnValueOfTheWrongTypeFailsTheAdviceNotTheMethod() throws Throwable {
        Object target = woven(classFile(TARGET), named("greet"), WeaveTestAdvice.WrongReturnType.class);

        assertThat(call(target, "greet", "ab", 1L, 0.5)).isEqualTo("ab");
    }

    @Test
    void enterAdviceMayRewriteAnArgument() throws Throwable {
        Object target = woven(classFile(TARGET), named("decide"), WeaveTestAdvice.Negate.class);

        assertThat(call(target, "decide", true)).isEqualTo(false);
        assertThat(call(target, "decide", false)).isEqualTo(true);
    }

    @Test
    void aPrimitiveEnterValueSkipsTheBodyWhenItIsNotTheDefault() throws Throwable {
        Object target = woven(classFile(TARGET), named("count"), WeaveTestAdvice.SkipOnPrimitive.class);

        assertThat(call(target, "count", 4)).isEqualTo(6);
        assertThat(call(target, "count", -4)).isEqualTo(-1);
        assertThat(WeaveRecorder.bodyRuns).isEqualTo(1);
    }

    /** Values a compiler other than javac may leave under the returned one: drained before the exit advice. */
    @Test
    void aReturnWithValuesLeftOnTheStackIsWoven() throws Throwable {
        Object target = woven(leftoversClass(), named("answer"), WeaveTestAdvice.ReadInt.class);

        assertThat(call(target, "answer")).isEqualTo(42);
        assertThat(WeaveRecorder.seen).containsExactly(42);
    }

    /**
     * HttpClient 4.5's class files are Java 6 ones, whose frames the JVM checks with the old verifier
     * again when they fail (no flag turns that off since JDK 12): the woven class is defined as a
     * Java 7 one, whose frames the type-checking verifier alone checks. Its code is valid in both.
     */
    @Test
    void aJava6ClassFileIsWovenWithFramesTheTypeCheckingVerifierAccepts() throws Throwable {
        byte[] java6 = withVersion(classFile(TARGET), Opcodes.V1_6, false);
        Object target = woven(java6, named("greet"), WeaveTestAdvice.Replace.class, Opcodes.V1_7);

        assertThat(call(target, "greet", "ab", 2L, 2.5)).isEqualTo("abab+");
        WeaveRecorder.replacement = "replaced";
        assertThat(call(target, "greet", "ab", 2L, -1.0)).isEqualTo("replaced");
    }

    @Test
    void aJava5ClassFileWithoutFramesIsWoven() throws Throwable {
        byte[] java5 = withVersion(classFile(TARGET), Opcodes.V1_5, true);
        Object target = woven(java5, named("count"), WeaveTestAdvice.ReadReturn.class);

        assertThat(call(target, "count", 7)).isEqualTo(21);
        assertThat(WeaveRecorder.seen).containsExactly("consistent");
    }

    /** Read as the newest version ByteBuddy knows, written back with its own. */
    @Test
    void aClassFileNewerThanByteBuddyKnowsIsWovenAndKeepsItsVersion() throws Throwable {
        byte[] future = classFile(TARGET);
        future[6] = 0;
        future[7] = 99;
        AdviceWeaver.Woven woven = weaver.weave(
                TARGET.replace('.', '/'),
                getClass().getClassLoader(),
                future,
                declarations(named("count"), WeaveTestAdvice.ReadReturn.class));

        assertThat(woven.methods).isEqualTo(1);
        assertThat(woven.classFile[7]).isEqualTo((byte) 99);
        assertThat(future[7]).as("the buffer handed over is left as it was").isEqualTo((byte) 99);
    }

    @Test
    void aClassWithNoMatchedMethodIsLeftAlone() throws Throwable {
        assertThat(weaver.weave(
                        TARGET.replace('.', '/'),
                        getClass().getClassLoader(),
                        classFile(TARGET),
                        declarations(named("absent"), WeaveTestAdvice.Negate.class)))
                .isNull();
    }

    @Test
    void anAdviceTheClassCannotTakeFailsTheWeave() {
        assertThatThrownBy(() -> weaver.weave(
                        TARGET.replace('.', '/'),
                        getClass().getClassLoader(),
                        classFile(TARGET),
                        declarations(named("count"), WeaveTestAdvice.MissingField.class)))
                .hasMessageContaining("absent");
    }

    @Test
    void twoAdviceClassesOnOneMethodAreRefused() throws Throwable {
        List<AdviceWeaver.Declaration> both = new ArrayList<>();
        both.addAll(declarations(named("count"), WeaveTestAdvice.ReadReturn.class));
        both.addAll(declarations(named("count"), WeaveTestAdvice.Throwing.class));
        assertThatThrownBy(() ->
                        weaver.weave(TARGET.replace('.', '/'), getClass().getClassLoader(), classFile(TARGET), both))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("two advice classes");
    }

    @Test
    void aModulesDeclarationsAreMadeOnceAndKept() {
        InstrumentationModule module = module(named("count"), WeaveTestAdvice.ReadReturn.class);

        assertThat(weaver.declarationsOf(module)).hasSize(1).isSameAs(weaver.declarationsOf(module));
    }

    private Object woven(byte[] classFile, ElementMatcher<? super MethodDescription> methods, Class<?> advice)
            throws Exception {
        return woven(classFile, methods, advice, 0);
    }

    /** The class woven, defined at {@code definedAsVersion} (its own when 0), and instantiated. */
    private Object woven(
            byte[] classFile, ElementMatcher<? super MethodDescription> methods, Class<?> advice, int definedAsVersion)
            throws Exception {
        String name = new ClassReader(classFile).getClassName();
        AdviceWeaver.Woven woven =
                weaver.weave(name, getClass().getClassLoader(), classFile, declarations(methods, advice));
        assertThat(woven).isNotNull();
        byte[] defined = woven.classFile;
        if (definedAsVersion != 0) {
            defined = defined.clone();
            defined[6] = (byte) (definedAsVersion >>> 8);
            defined[7] = (byte) definedAsVersion;
        }
        String binaryName = name.replace('/', '.');
        Class<?> type = new OneClassLoader(binaryName, defined).loadClass(binaryName);
        return type.getConstructor().newInstance();
    }

    private List<AdviceWeaver.Declaration> declarations(
            ElementMatcher<? super MethodDescription> methods, Class<?> advice) {
        return weaver.declarationsOf(module(methods, advice));
    }

    private static InstrumentationModule module(ElementMatcher<? super MethodDescription> methods, Class<?> advice) {
        return new InstrumentationModule() {
            @Override
            public String name() {
                return "test";
            }

            @Override
            public List<String> hookedTypeNames() {
                return Collections.singletonList(TARGET);
            }

            @Override
            public void declareAdvice(AdviceSink sink) {
                sink.advise(methods, advice.getName());
            }

            @Override
            public String helperPackage() {
                return "none.";
            }

            @Override
            public String hookClassName() {
                return "none.None";
            }
        };
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
                AdviceWeaverTest.class.getClassLoader().getResourceAsStream(name.replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    /** The class file at another version; {@code dropFrames} for a version before stack map frames. */
    private static byte[] withVersion(byte[] classFile, int version, boolean dropFrames) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(0);
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public void visit(
                            int ignored,
                            int access,
                            String name,
                            String signature,
                            String superName,
                            String[] interfaces) {
                        super.visit(version, access, name, signature, superName, interfaces);
                    }

                    @Override
                    public void visitNestMember(String nestMember) {} // not in a Java 5 or 6 class file
                },
                dropFrames ? ClassReader.SKIP_FRAMES : 0);
        return writer.toByteArray();
    }

    /** {@code Leftovers.answer()}: pushes 7, then 42, and returns 42 with the 7 still on the stack. */
    private static byte[] leftoversClass() {
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        writer.visit(
                Opcodes.V17, Opcodes.ACC_PUBLIC, "dev/sluice/agent/weaving/Leftovers", null, "java/lang/Object", null);
        MethodVisitor init = writer.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor answer = writer.visitMethod(Opcodes.ACC_PUBLIC, "answer", "()I", null, null);
        answer.visitCode();
        answer.visitIntInsn(Opcodes.BIPUSH, 7);
        answer.visitIntInsn(Opcodes.BIPUSH, 42);
        answer.visitInsn(Opcodes.IRETURN);
        answer.visitMaxs(0, 0);
        answer.visitEnd();
        writer.visitEnd();
        return writer.toByteArray();
    }
}
