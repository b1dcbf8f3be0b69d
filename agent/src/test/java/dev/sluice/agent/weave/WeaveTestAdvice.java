package dev.sluice.agent.weave;

import dev.sluice.instrumentation.api.Advice;

/** Advice classes for {@link ClassWeaverTest}, one per shape the instrumentations use. */
final class WeaveTestAdvice {

    private WeaveTestAdvice() {}

    /** The shape of every call hook: enter may replace the call, exit hands over its outcome. */
    static final class Replace {
        @Advice.OnMethodEnter(skipOnNonNull = true)
        static Object enter(
                @Advice.Origin Class<?> type,
                @Advice.MethodName String method,
                @Advice.This Object self,
                @Advice.FieldValue("label") String label,
                @Advice.AllArguments Object[] arguments) {
            WeaveRecorder.seen.add(type);
            WeaveRecorder.seen.add(method);
            WeaveRecorder.seen.add(self.toString());
            WeaveRecorder.seen.add(label);
            WeaveRecorder.seen.add(java.util.Arrays.asList(arguments));
            return WeaveRecorder.replacementFor(arguments);
        }

        @Advice.OnMethodExit(onThrowable = true)
        static void exit(
                @Advice.Enter Object replacement,
                @Advice.Return(readOnly = false) Object returned,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (replacement != null) {
                returned = replacement;
                thrown = null;
            }
        }
    }

    /** Advice that fails on both sides: the method must not notice. */
    static final class Throwing {
        @Advice.OnMethodEnter
        static void enter(@Advice.This Object self) {
            WeaveRecorder.seen.add("enter");
            throw new IllegalStateException("enter advice fails");
        }

        @Advice.OnMethodExit(onThrowable = true)
        static void exit(@Advice.Thrown Throwable thrown) {
            WeaveRecorder.seen.add(thrown == null ? "returned" : "threw");
            Object broken = null;
            broken.hashCode();
        }
    }

    /** Exit advice that reads what the method returned, with a loop and locals of its own. */
    static final class ReadReturn {
        @Advice.OnMethodExit
        static void exit(@Advice.Return int returned, @Advice.Argument(0) int n) {
            long sum = 0;
            for (int i = 0; i < n; i++) {
                sum += i;
            }
            WeaveRecorder.seen.add(returned == sum ? "consistent" : (Object) Integer.valueOf(returned));
        }
    }

    /** Exit advice that turns a throw into a normal return. */
    static final class Swallow {
        @Advice.OnMethodExit(onThrowable = true)
        static void exit(@Advice.Thrown(readOnly = false) Throwable thrown) {
            WeaveRecorder.seen.add(thrown);
            if (WeaveRecorder.swallow) {
                thrown = null;
            }
        }
    }

    /** Enter advice that rewrites an argument. */
    static final class Negate {
        @Advice.OnMethodEnter
        static void enter(@Advice.Argument(value = 0, readOnly = false) boolean wanted) {
            wanted = !wanted;
        }
    }

    /** Reads a field the class does not declare: the weaver must refuse it. */
    static final class MissingField {
        @Advice.OnMethodEnter
        static void enter(@Advice.FieldValue("absent") Object absent) {}
    }

    /** Enter advice cannot see a return value that does not exist yet: the weaver must refuse it. */
    static final class EnterReadsReturn {
        @Advice.OnMethodEnter
        static void enter(@Advice.Return Object returned) {}
    }

    /** Exit advice that writes a value the method cannot return: the method must return its own. */
    static final class WrongReturnType {
        @Advice.OnMethodExit
        static void exit(@Advice.Return(readOnly = false) Object returned) {
            returned = Integer.valueOf(42);
        }
    }

    /** Advice with a lambda: its invokedynamic would need a bootstrap the hooked class lacks. */
    static final class WithLambda {
        @Advice.OnMethodEnter
        static void enter(@Advice.This Object self) {
            Runnable record = () -> WeaveRecorder.seen.add(self);
            record.run();
        }
    }
}
