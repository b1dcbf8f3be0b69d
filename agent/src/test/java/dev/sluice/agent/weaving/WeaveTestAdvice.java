package dev.sluice.agent.weaving;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** Advice classes for {@code AdviceWeaverTest}, each in the shape the instrumentations use or the issue names. */
public final class WeaveTestAdvice {

    private WeaveTestAdvice() {}

    /** The shape of every call hook: enter may replace the call, exit hands over its outcome. */
    public static final class Replace {
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(
                @Advice.Origin Class<?> type,
                @Advice.Origin("#m") String method,
                @Advice.This Object self,
                @Advice.FieldValue("label") String label,
                @Advice.AllArguments Object[] arguments) {
            WeaveRecorder.seen.add(type);
            WeaveRecorder.seen.add(method);
            WeaveRecorder.seen.add(self.toString());
            WeaveRecorder.seen.add(label);
            WeaveRecorder.seen.add(java.util.Arrays.asList(arguments));
            return WeaveRecorder.replacement;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(
                @Advice.Enter Object replacement,
                @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (replacement != null) {
                returned = replacement;
                thrown = null;
            }
        }
    }

    /** Advice that fails on both sides: the method must not notice. */
    public static final class Throwing {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        public static void enter() {
            WeaveRecorder.seen.add("enter");
            throw new IllegalStateException("enter advice fails");
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Thrown Throwable thrown) {
            WeaveRecorder.seen.add(thrown == null ? "returned" : "threw");
            throw new IllegalStateException("exit advice fails");
        }
    }

    /** Exit advice that reads the returned value and the argument, with a loop and locals of its own. */
    public static final class ReadReturn {
        @Advice.OnMethodExit(suppress = Throwable.class)
        public static void exit(@Advice.Return int returned, @Advice.Argument(0) int n) {
            long sum = 0;
            for (int i = 0; i < n; i++) {
                sum += i;
            }
            WeaveRecorder.seen.add(returned == sum ? "consistent" : (Object) Integer.valueOf(returned));
        }
    }

    /** Exit advice that reads the argument the method reassigned in its body. */
    public static final class ReadArgumentOnExit {
        @Advice.OnMethodExit(suppress = Throwable.class)
        public static void exit(@Advice.Argument(0) String value, @Advice.Return String returned) {
            WeaveRecorder.seen.add(value);
            WeaveRecorder.seen.add(returned);
        }
    }

    /** Exit advice that turns a throw into a normal return. */
    public static final class Swallow {
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Thrown(readOnly = false) Throwable thrown) {
            WeaveRecorder.seen.add(thrown);
            if (WeaveRecorder.swallow) {
                thrown = null;
            }
        }
    }

    /** Enter advice that rewrites an argument. */
    public static final class Negate {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        public static void enter(@Advice.Argument(value = 0, readOnly = false) boolean wanted) {
            wanted = !wanted;
        }
    }

    /** Enter advice whose value is a primitive: a non-default one ({@code true}) skips the body. */
    public static final class SkipOnPrimitive {
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static boolean enter(@Advice.Argument(0) int n) {
            return n < 0;
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        public static void exit(@Advice.Enter boolean skipped, @Advice.Return(readOnly = false) int returned) {
            if (skipped) {
                returned = -1;
            }
        }
    }

    /** Exit advice that writes a value the method cannot return: the method must return its own. */
    public static final class WrongReturnType {
        @Advice.OnMethodExit(suppress = Throwable.class)
        public static void exit(@Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
            returned = Integer.valueOf(1);
        }
    }

    /** Reads a field the class does not declare: ByteBuddy refuses it. */
    public static final class MissingField {
        @Advice.OnMethodEnter(suppress = Throwable.class)
        public static void enter(@Advice.FieldValue("absent") Object absent) {}
    }

    /** Reads the return value of a method: for a hand-made class whose returns leave values on the stack. */
    public static final class ReadInt {
        @Advice.OnMethodExit(suppress = Throwable.class)
        public static void exit(@Advice.Return int returned) {
            WeaveRecorder.seen.add(returned);
        }
    }
}
