package dev.sluice.instrumentation.api;

import java.util.Arrays;
import java.util.List;

/**
 * Which methods of a hooked class get an advice, decided from the class file alone (owner, access
 * flags, name and descriptor): nothing is loaded to decide. Immutable; each refinement returns a
 * new selector.
 *
 * <p>Type names are binary names ({@code java.net.SocketAddress}) or primitive keywords
 * ({@code int}, {@code boolean}).
 */
public final class MethodSelector {

    private static final int ACC_PUBLIC = 0x0001;

    // Set only while a refinement builds its copy: a selector handed out never changes.
    private String name;
    private boolean publicOnly;
    private int[] argumentCounts;
    /** Descriptor required at each argument index, {@code null} where any type goes. */
    private String[] argumentDescriptors = new String[0];

    private String returnDescriptor;
    private String declaringType;
    private MethodSelector orElse;

    private MethodSelector() {}

    private MethodSelector copy() {
        MethodSelector copy = new MethodSelector();
        copy.name = name;
        copy.publicOnly = publicOnly;
        copy.argumentCounts = argumentCounts;
        copy.argumentDescriptors = argumentDescriptors;
        copy.returnDescriptor = returnDescriptor;
        copy.declaringType = declaringType;
        copy.orElse = orElse;
        return copy;
    }

    /** Methods with this exact name. */
    public static MethodSelector named(String name) {
        MethodSelector selector = new MethodSelector();
        selector.name = name;
        return selector;
    }

    /** Only public methods. */
    public MethodSelector publicOnly() {
        MethodSelector refined = copy();
        refined.publicOnly = true;
        return refined;
    }

    /** Only methods taking one of these numbers of arguments. */
    public MethodSelector takesArguments(int... counts) {
        MethodSelector refined = copy();
        refined.argumentCounts = counts.clone();
        return refined;
    }

    /** Only methods whose argument at {@code index} is declared with exactly this type. */
    public MethodSelector takesArgument(int index, String typeName) {
        MethodSelector refined = copy();
        refined.argumentDescriptors =
                Arrays.copyOf(argumentDescriptors, Math.max(argumentDescriptors.length, index + 1));
        refined.argumentDescriptors[index] = descriptorOf(typeName);
        return refined;
    }

    /** Only methods declared to return exactly this type. */
    public MethodSelector returns(String typeName) {
        MethodSelector refined = copy();
        refined.returnDescriptor = descriptorOf(typeName);
        return refined;
    }

    /** Only methods of this hooked class (for a module that hooks several). */
    public MethodSelector declaredBy(String typeName) {
        MethodSelector refined = copy();
        refined.declaringType = typeName;
        return refined;
    }

    /** The methods this selector or {@code other} selects. */
    public MethodSelector or(MethodSelector other) {
        MethodSelector either = copy();
        either.orElse = orElse == null ? other : orElse.or(other);
        return either;
    }

    /**
     * Whether the method is selected.
     *
     * @param owner binary name of the class declaring it
     * @param access its access flags, as in the class file
     * @param methodName its name
     * @param returns the descriptor of its return type, e.g. {@code V}
     * @param arguments the descriptor of each argument, e.g. {@code Ljava/net/SocketAddress;}, {@code I}
     */
    public boolean matches(String owner, int access, String methodName, String returns, List<String> arguments) {
        return matchesThis(owner, access, methodName, returns, arguments)
                || (orElse != null && orElse.matches(owner, access, methodName, returns, arguments));
    }

    private boolean matchesThis(String owner, int access, String methodName, String returns, List<String> arguments) {
        if (!name.equals(methodName)
                || (publicOnly && (access & ACC_PUBLIC) == 0)
                || (declaringType != null && !declaringType.equals(owner))
                || (returnDescriptor != null && !returnDescriptor.equals(returns))
                || (argumentCounts != null && !contains(argumentCounts, arguments.size()))) {
            return false;
        }
        for (int i = 0; i < argumentDescriptors.length; i++) {
            String required = argumentDescriptors[i];
            if (required != null && (i >= arguments.size() || !arguments.get(i).equals(required))) {
                return false;
            }
        }
        return true;
    }

    private static boolean contains(int[] values, int value) {
        for (int candidate : values) {
            if (candidate == value) {
                return true;
            }
        }
        return false;
    }

    /** The field descriptor of a binary type name or a primitive keyword. */
    static String descriptorOf(String typeName) {
        switch (typeName) {
            case "boolean":
                return "Z";
            case "byte":
                return "B";
            case "char":
                return "C";
            case "short":
                return "S";
            case "int":
                return "I";
            case "long":
                return "J";
            case "float":
                return "F";
            case "double":
                return "D";
            case "void":
                return "V";
            default:
                if (typeName.endsWith("[]")) {
                    return "[" + descriptorOf(typeName.substring(0, typeName.length() - 2));
                }
                return "L" + typeName.replace('.', '/') + ";";
        }
    }

    @Override
    public String toString() {
        String own = name + (argumentCounts == null ? "" : Arrays.toString(argumentCounts));
        return orElse == null ? own : own + " or " + orElse;
    }
}
