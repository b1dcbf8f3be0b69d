package dev.sluice.instrumentation.api;

import java.util.ArrayList;
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

    private final String name;
    private final boolean publicOnly;
    private final int[] argumentCounts;
    /** Descriptor required at each argument index, {@code null} where any type goes. */
    private final String[] argumentDescriptors;

    private final String returnDescriptor;
    private final String declaringType;
    private final MethodSelector orElse;

    private MethodSelector(
            String name,
            boolean publicOnly,
            int[] argumentCounts,
            String[] argumentDescriptors,
            String returnDescriptor,
            String declaringType,
            MethodSelector orElse) {
        this.name = name;
        this.publicOnly = publicOnly;
        this.argumentCounts = argumentCounts;
        this.argumentDescriptors = argumentDescriptors;
        this.returnDescriptor = returnDescriptor;
        this.declaringType = declaringType;
        this.orElse = orElse;
    }

    /** Methods with this exact name. */
    public static MethodSelector named(String name) {
        return new MethodSelector(name, false, null, new String[0], null, null, null);
    }

    /** Only public methods. */
    public MethodSelector publicOnly() {
        return new MethodSelector(
                name, true, argumentCounts, argumentDescriptors, returnDescriptor, declaringType, orElse);
    }

    /** Only methods taking one of these numbers of arguments. */
    public MethodSelector takesArguments(int... counts) {
        return new MethodSelector(
                name, publicOnly, counts.clone(), argumentDescriptors, returnDescriptor, declaringType, orElse);
    }

    /** Only methods whose argument at {@code index} is declared with exactly this type. */
    public MethodSelector takesArgument(int index, String typeName) {
        String[] descriptors = Arrays.copyOf(argumentDescriptors, Math.max(argumentDescriptors.length, index + 1));
        descriptors[index] = descriptorOf(typeName);
        return new MethodSelector(
                name, publicOnly, argumentCounts, descriptors, returnDescriptor, declaringType, orElse);
    }

    /** Only methods declared to return exactly this type. */
    public MethodSelector returns(String typeName) {
        return new MethodSelector(
                name, publicOnly, argumentCounts, argumentDescriptors, descriptorOf(typeName), declaringType, orElse);
    }

    /** Only methods of this hooked class (for a module that hooks several). */
    public MethodSelector declaredBy(String typeName) {
        return new MethodSelector(
                name, publicOnly, argumentCounts, argumentDescriptors, returnDescriptor, typeName, orElse);
    }

    /** The methods this selector or {@code other} selects. */
    public MethodSelector or(MethodSelector other) {
        MethodSelector alternative = orElse == null ? other : orElse.or(other);
        return new MethodSelector(
                name, publicOnly, argumentCounts, argumentDescriptors, returnDescriptor, declaringType, alternative);
    }

    /**
     * Whether the method is selected.
     *
     * @param owner binary name of the class declaring it
     * @param access its access flags, as in the class file
     * @param methodName its name
     * @param descriptor its descriptor, e.g. {@code (Ljava/net/SocketAddress;I)V}
     */
    public boolean matches(String owner, int access, String methodName, String descriptor) {
        return matchesThis(owner, access, methodName, descriptor)
                || (orElse != null && orElse.matches(owner, access, methodName, descriptor));
    }

    private boolean matchesThis(String owner, int access, String methodName, String descriptor) {
        if (!name.equals(methodName)
                || (publicOnly && (access & ACC_PUBLIC) == 0)
                || (declaringType != null && !declaringType.equals(owner))) {
            return false;
        }
        int close = descriptor.indexOf(')');
        if (returnDescriptor != null && !descriptor.substring(close + 1).equals(returnDescriptor)) {
            return false;
        }
        List<String> arguments = argumentDescriptors(descriptor);
        if (argumentCounts != null && !contains(argumentCounts, arguments.size())) {
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

    /** The descriptor of each argument of a method descriptor, in order. */
    public static List<String> argumentDescriptors(String methodDescriptor) {
        List<String> arguments = new ArrayList<>();
        int at = 1;
        while (methodDescriptor.charAt(at) != ')') {
            int start = at;
            while (methodDescriptor.charAt(at) == '[') {
                at++;
            }
            if (methodDescriptor.charAt(at) == 'L') {
                at = methodDescriptor.indexOf(';', at);
            }
            at++;
            arguments.add(methodDescriptor.substring(start, at));
        }
        return arguments;
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
