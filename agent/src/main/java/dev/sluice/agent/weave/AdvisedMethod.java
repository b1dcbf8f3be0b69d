package dev.sluice.agent.weave;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.TypePath;

/**
 * Rewrites one library method so its advice runs around the body, with the advice's code copied in
 * (nothing is added to the class, so retransformation may apply it).
 *
 * <p>The method's locals are laid out as: its parameters; three slots of the weaver's (what the
 * enter advice returned, the value to return, what was thrown); the body's own locals, moved up by
 * those slots; the advice's locals are placed right after the weaver's slots, where the body's
 * locals are not alive (before the body starts and after it ends). Every stack map frame is
 * written explicitly from the class file's own frames and the method's descriptor: no type is
 * loaded or resolved to weave.
 *
 * <pre>
 *   enter   = default; try { enter = ENTER-ADVICE } catch (Throwable ignored) {}
 *   if (skipOnNonNull and enter != null) { returned = default; thrown = null; goto exit }
 *   try { BODY (each return: returned = value; thrown = null; goto exit) }
 *   catch (Throwable t) { thrown = t; returned = default }            (only with onThrowable)
 *   exit: try { EXIT-ADVICE } catch (Throwable ignored) {}
 *   if (thrown != null) throw thrown; return returned;
 * </pre>
 */
final class AdvisedMethod extends MethodVisitor {

    private static final String OBJECT = "java/lang/Object";
    private static final String THROWABLE = "java/lang/Throwable";

    private final String owner;
    private final String methodName;
    private final boolean isStatic;
    private final Type[] argumentTypes;
    private final Type returnType;
    private final Map<String, FieldShape> fields;
    private final AdviceMethod enter;
    private final AdviceMethod exit;

    private final int parameterSlots;
    private final int enterSlot;
    private final int returnSlot;
    private final int thrownSlot;
    /** Slots the weaver inserts between the parameters and the body's locals. */
    private final int shift;

    /** The frame locals of the parameters as declared, in ASM's list form. */
    private final List<Object> declaredParameters;

    private final Label bodyStart = new Label();
    private final Label bodyEnd = new Label();
    private final Label bodyThrew = new Label();
    private final Label exitLabel = new Label();

    /** The type and staticness of a field the hooked class declares. */
    static final class FieldShape {
        final String descriptor;
        final boolean isStatic;

        FieldShape(String descriptor, boolean isStatic) {
            this.descriptor = descriptor;
            this.isStatic = isStatic;
        }
    }

    AdvisedMethod(
            MethodVisitor target,
            String owner,
            int access,
            String methodName,
            String descriptor,
            Map<String, FieldShape> fields,
            AdviceClass advice) {
        super(Opcodes.ASM9, target);
        this.owner = owner;
        this.methodName = methodName;
        this.isStatic = (access & Opcodes.ACC_STATIC) != 0;
        this.argumentTypes = Type.getArgumentTypes(descriptor);
        this.returnType = Type.getReturnType(descriptor);
        this.fields = fields;
        this.enter = advice.enter;
        this.exit = advice.exit;

        declaredParameters = new ArrayList<>();
        int slots = 0;
        if (!isStatic) {
            declaredParameters.add(owner);
            slots++;
        }
        for (Type argument : argumentTypes) {
            declaredParameters.add(frameType(argument));
            slots += argument.getSize();
        }
        parameterSlots = slots;
        enterSlot = parameterSlots;
        returnSlot = enterSlot + 1;
        thrownSlot = returnSlot + Math.max(1, returnType.getSize());
        shift = thrownSlot + 1 - parameterSlots;
    }

    // ---- the prologue: enter advice, skip, start of the body

    @Override
    public void visitCode() {
        super.visitCode();
        if (enter != null) {
            if (enterType() != null) {
                pushDefault(enter.returnType());
                mv.visitVarInsn(enter.returnType().getOpcode(Opcodes.ISTORE), enterSlot);
            }
            inline(enter, enterPhase());
            if (enter.skipOnNonNull && enterType() != null) {
                Label run = new Label();
                mv.visitVarInsn(Opcodes.ALOAD, enterSlot);
                mv.visitJumpInsn(Opcodes.IFNULL, run);
                if (exit != null) {
                    leaveWithDefault();
                } else {
                    pushDefault(returnType);
                    mv.visitInsn(returnType.getOpcode(Opcodes.IRETURN));
                }
                mv.visitLabel(run);
                frame(enterPhase(), new Object[0]);
            }
            // the body's first instruction may carry a frame of its own; two frames may not share an offset
            mv.visitInsn(Opcodes.NOP);
        }
        mv.visitLabel(bodyStart);
    }

    // ---- the body: locals moved up, returns sent to the exit advice, frames widened

    @Override
    public void visitVarInsn(int opcode, int slot) {
        super.visitVarInsn(opcode, moved(slot));
    }

    @Override
    public void visitIincInsn(int slot, int increment) {
        super.visitIincInsn(moved(slot), increment);
    }

    @Override
    public void visitLocalVariable(
            String name, String descriptor, String signature, Label start, Label end, int index) {
        super.visitLocalVariable(name, descriptor, signature, start, end, moved(index));
    }

    @Override
    public AnnotationVisitor visitLocalVariableAnnotation(
            int typeRef,
            TypePath typePath,
            Label[] start,
            Label[] end,
            int[] index,
            String descriptor,
            boolean visible) {
        return null; // type annotations on locals: their slots would need moving, and nothing reads them at run time
    }

    private int moved(int slot) {
        return slot < parameterSlots ? slot : slot + shift;
    }

    @Override
    public void visitInsn(int opcode) {
        if (exit != null && opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
            if (opcode != Opcodes.RETURN) {
                mv.visitVarInsn(returnType.getOpcode(Opcodes.ISTORE), returnSlot);
            }
            toExitWithoutThrow();
            return;
        }
        super.visitInsn(opcode);
    }

    @Override
    public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stack) {
        if (type != Opcodes.F_NEW) {
            throw new WeaveException("frames must be expanded");
        }
        List<Object> locals = new ArrayList<>();
        int slots = 0;
        int i = 0;
        for (; i < numLocal && slots < parameterSlots; i++) {
            locals.add(local[i]);
            slots += slotsOf(local[i]);
        }
        for (; slots < parameterSlots; slots++) {
            locals.add(Opcodes.TOP);
        }
        locals.addAll(weaverSlots(enterType(), false));
        for (; i < numLocal; i++) {
            locals.add(local[i]);
        }
        super.visitFrame(Opcodes.F_NEW, locals.size(), locals.toArray(), numStack, stack);
    }

    // ---- the epilogue: what was thrown, the exit advice, the return

    @Override
    public void visitMaxs(int maxStack, int maxLocals) {
        if (exit != null) {
            mv.visitLabel(bodyEnd);
            if (exit.onThrowable) {
                mv.visitLabel(bodyThrew);
                frame(enterPhase(), new Object[] {THROWABLE}); // the body's locals are gone
                mv.visitVarInsn(Opcodes.ASTORE, thrownSlot);
                storeDefaultReturn();
                mv.visitJumpInsn(Opcodes.GOTO, exitLabel);
                mv.visitTryCatchBlock(bodyStart, bodyEnd, bodyThrew, THROWABLE);
            }
            mv.visitLabel(exitLabel);
            frame(exitPhase(), new Object[0]);
            inline(exit, exitPhase());
            Label returns = new Label();
            mv.visitVarInsn(Opcodes.ALOAD, thrownSlot);
            mv.visitJumpInsn(Opcodes.IFNULL, returns);
            mv.visitVarInsn(Opcodes.ALOAD, thrownSlot);
            mv.visitInsn(Opcodes.ATHROW);
            mv.visitLabel(returns);
            frame(exitPhase(), new Object[0]);
            if (returnType.getSort() == Type.VOID) {
                mv.visitInsn(Opcodes.RETURN);
            } else {
                mv.visitVarInsn(returnType.getOpcode(Opcodes.ILOAD), returnSlot);
                mv.visitInsn(returnType.getOpcode(Opcodes.IRETURN));
            }
        }
        super.visitMaxs(maxStack, maxLocals); // recomputed by the writer
    }

    /** Leaves the prologue for the exit advice as if the body had returned the default value. */
    private void leaveWithDefault() {
        storeDefaultReturn();
        toExitWithoutThrow();
    }

    private void storeDefaultReturn() {
        if (returnType.getSort() != Type.VOID) {
            pushDefault(returnType);
            mv.visitVarInsn(returnType.getOpcode(Opcodes.ISTORE), returnSlot);
        }
    }

    /** Nothing thrown; on to the exit advice. */
    private void toExitWithoutThrow() {
        mv.visitInsn(Opcodes.ACONST_NULL);
        mv.visitVarInsn(Opcodes.ASTORE, thrownSlot);
        mv.visitJumpInsn(Opcodes.GOTO, exitLabel);
    }

    // ---- frames of each phase

    /** The enter advice's return type as a frame type, {@code null} when it returns nothing (or there is none). */
    private Object enterType() {
        if (enter == null || enter.returnType().getSort() == Type.VOID) {
            return null;
        }
        return frameType(enter.returnType());
    }

    /** Before and in the body: the parameters, the enter value; the other slots are not set yet. */
    private List<Object> enterPhase() {
        List<Object> locals = new ArrayList<>(declaredParameters);
        locals.addAll(weaverSlots(enterType(), false));
        return locals;
    }

    /** After the body: the parameters, the enter value, the value to return and what was thrown. */
    private List<Object> exitPhase() {
        List<Object> locals = new ArrayList<>(declaredParameters);
        locals.addAll(weaverSlots(enterType(), true));
        return locals;
    }

    private List<Object> weaverSlots(Object enterType, boolean exiting) {
        List<Object> slots = new ArrayList<>(4);
        slots.add(enterType == null ? Opcodes.TOP : enterType);
        if (exiting && returnType.getSort() != Type.VOID) {
            slots.add(frameType(returnType));
        } else {
            for (int i = 0; i < Math.max(1, returnType.getSize()); i++) {
                slots.add(Opcodes.TOP);
            }
        }
        slots.add(exiting ? THROWABLE : Opcodes.TOP);
        return slots;
    }

    private void frame(List<Object> locals, Object[] stack) {
        mv.visitFrame(Opcodes.F_NEW, locals.size(), locals.toArray(), stack.length, stack);
    }

    // ---- copying one advice method in

    /**
     * Copies {@code advice} in: its parameters are evaluated into fresh slots after the weaver's, its
     * code follows with its slots moved there too, each of its returns becomes a jump past it, and
     * whatever it throws is caught and dropped. {@code phase} is the frame the locals below its own
     * are in, throughout.
     */
    private void inline(AdviceMethod advice, List<Object> phase) {
        int base = parameterSlots + shift;
        Label start = new Label();
        Label end = new Label();
        Label suppressed = new Label();
        Label done = new Label();
        mv.visitLabel(start);
        int slot = base;
        for (AdviceMethod.Parameter parameter : advice.parameters) {
            load(advice, parameter);
            mv.visitVarInsn(parameter.type.getOpcode(Opcodes.ISTORE), slot);
            slot += parameter.type.getSize();
        }
        advice.replay(new Copy(advice, base, phase, done));
        mv.visitLabel(end);
        mv.visitLabel(suppressed);
        frame(phase, new Object[] {THROWABLE});
        mv.visitInsn(Opcodes.POP);
        mv.visitLabel(done);
        frame(phase, new Object[0]);
        // registered after the advice's own handlers, so those stay first in the table
        mv.visitTryCatchBlock(start, end, suppressed, THROWABLE);
    }

    /** Pushes the value one advice parameter binds to, as the parameter's type. */
    private void load(AdviceMethod advice, AdviceMethod.Parameter parameter) {
        // what the advice alone allows was checked when its class was read (AdviceMethod.validate)
        Type wanted = parameter.type;
        switch (parameter.binding) {
            case THIS:
                requireInstance(advice);
                mv.visitVarInsn(Opcodes.ALOAD, 0);
                castTo(wanted, Type.getObjectType(owner), advice);
                break;
            case ARGUMENT:
                if (parameter.argumentIndex >= argumentTypes.length) {
                    throw new WeaveException(advice + " reads argument " + parameter.argumentIndex + " of " + owner
                            + "." + methodName + ", which takes " + argumentTypes.length);
                }
                Type argument = argumentTypes[parameter.argumentIndex];
                mv.visitVarInsn(argument.getOpcode(Opcodes.ILOAD), argumentSlot(parameter.argumentIndex));
                castTo(wanted, argument, advice);
                break;
            case ALL_ARGUMENTS:
                pushInt(argumentTypes.length);
                mv.visitTypeInsn(Opcodes.ANEWARRAY, OBJECT);
                for (int i = 0; i < argumentTypes.length; i++) {
                    mv.visitInsn(Opcodes.DUP);
                    pushInt(i);
                    mv.visitVarInsn(argumentTypes[i].getOpcode(Opcodes.ILOAD), argumentSlot(i));
                    box(argumentTypes[i]);
                    mv.visitInsn(Opcodes.AASTORE);
                }
                break;
            case FIELD:
                FieldShape field = fields.get(parameter.fieldName);
                if (field == null) {
                    throw new WeaveException(
                            advice + " reads field " + parameter.fieldName + ", which " + owner + " does not declare");
                }
                if (field.isStatic) {
                    mv.visitFieldInsn(Opcodes.GETSTATIC, owner, parameter.fieldName, field.descriptor);
                } else {
                    requireInstance(advice);
                    mv.visitVarInsn(Opcodes.ALOAD, 0);
                    mv.visitFieldInsn(Opcodes.GETFIELD, owner, parameter.fieldName, field.descriptor);
                }
                castTo(wanted, Type.getType(field.descriptor), advice);
                break;
            case ORIGIN:
                mv.visitLdcInsn(Type.getObjectType(owner));
                break;
            case METHOD_NAME:
                mv.visitLdcInsn(methodName);
                break;
            case ENTER:
                if (enterType() == null) {
                    throw new WeaveException(advice + " reads @Enter, but no enter advice returns a value");
                }
                mv.visitVarInsn(enter.returnType().getOpcode(Opcodes.ILOAD), enterSlot);
                castTo(wanted, enter.returnType(), advice);
                break;
            case RETURN:
                if (returnType.getSort() == Type.VOID) {
                    throw new WeaveException(advice + " reads @Return of a void method");
                }
                mv.visitVarInsn(returnType.getOpcode(Opcodes.ILOAD), returnSlot);
                castTo(wanted, returnType, advice);
                break;
            case THROWN:
                mv.visitVarInsn(Opcodes.ALOAD, thrownSlot);
                castTo(wanted, Type.getObjectType(THROWABLE), advice);
                break;
            default:
                throw new WeaveException(advice + ": unknown binding " + parameter.binding);
        }
    }

    /** Writes a writable parameter's value back where it was read from. */
    private void writeBack(AdviceMethod advice, AdviceMethod.Parameter parameter, int slot) {
        mv.visitVarInsn(parameter.type.getOpcode(Opcodes.ILOAD), slot);
        switch (parameter.binding) {
            case ARGUMENT:
                Type argument = argumentTypes[parameter.argumentIndex];
                castTo(argument, parameter.type, advice);
                mv.visitVarInsn(argument.getOpcode(Opcodes.ISTORE), argumentSlot(parameter.argumentIndex));
                break;
            case RETURN:
                // cast here, inside the advice's catch-all: a value of the wrong type fails the
                // advice and the method returns its own value, instead of throwing at the return
                castTo(returnType, parameter.type, advice);
                mv.visitVarInsn(returnType.getOpcode(Opcodes.ISTORE), returnSlot);
                break;
            case THROWN:
                castTo(Type.getObjectType(THROWABLE), parameter.type, advice);
                mv.visitVarInsn(Opcodes.ASTORE, thrownSlot);
                break;
            default:
                throw new WeaveException(advice + ": " + parameter.binding + " cannot be written");
        }
    }

    /**
     * Makes the value on the stack, of type {@code from}, fit {@code to}. References are cast
     * (unless going to {@code Object} or staying the same type); primitives must match, as int-like
     * types all share one frame type.
     */
    private void castTo(Type to, Type from, AdviceMethod advice) {
        if (isReference(to) != isReference(from)) {
            throw new WeaveException(advice + ": cannot pass " + from + " as " + to);
        }
        if (isReference(to)) {
            if (!to.equals(from) && !to.getInternalName().equals(OBJECT)) {
                mv.visitTypeInsn(Opcodes.CHECKCAST, to.getInternalName());
            }
            return;
        }
        if (frameType(to) != frameType(from)) {
            throw new WeaveException(advice + ": cannot pass " + from + " as " + to);
        }
    }

    private void requireInstance(AdviceMethod advice) {
        if (isStatic) {
            throw new WeaveException(advice + " reads this of static " + owner + "." + methodName);
        }
    }

    private int argumentSlot(int index) {
        int slot = isStatic ? 0 : 1;
        for (int i = 0; i < index; i++) {
            slot += argumentTypes[i].getSize();
        }
        return slot;
    }

    private void pushDefault(Type type) {
        switch (type.getSort()) {
            case Type.VOID:
                return;
            case Type.LONG:
                mv.visitInsn(Opcodes.LCONST_0);
                return;
            case Type.FLOAT:
                mv.visitInsn(Opcodes.FCONST_0);
                return;
            case Type.DOUBLE:
                mv.visitInsn(Opcodes.DCONST_0);
                return;
            case Type.OBJECT:
            case Type.ARRAY:
                mv.visitInsn(Opcodes.ACONST_NULL);
                return;
            default:
                mv.visitInsn(Opcodes.ICONST_0);
        }
    }

    private void pushInt(int value) {
        if (value <= 5) {
            mv.visitInsn(Opcodes.ICONST_0 + value);
        } else {
            mv.visitIntInsn(Opcodes.BIPUSH, value);
        }
    }

    private void box(Type type) {
        String boxed;
        switch (type.getSort()) {
            case Type.BOOLEAN:
                boxed = "java/lang/Boolean";
                break;
            case Type.BYTE:
                boxed = "java/lang/Byte";
                break;
            case Type.CHAR:
                boxed = "java/lang/Character";
                break;
            case Type.SHORT:
                boxed = "java/lang/Short";
                break;
            case Type.INT:
                boxed = "java/lang/Integer";
                break;
            case Type.LONG:
                boxed = "java/lang/Long";
                break;
            case Type.FLOAT:
                boxed = "java/lang/Float";
                break;
            case Type.DOUBLE:
                boxed = "java/lang/Double";
                break;
            default:
                return;
        }
        mv.visitMethodInsn(
                Opcodes.INVOKESTATIC, boxed, "valueOf", "(" + type.getDescriptor() + ")L" + boxed + ";", false);
    }

    static boolean isReference(Type type) {
        return type.getSort() == Type.OBJECT || type.getSort() == Type.ARRAY;
    }

    /** A type as a stack map frame entry, in ASM's list form. */
    static Object frameType(Type type) {
        switch (type.getSort()) {
            case Type.BOOLEAN:
            case Type.BYTE:
            case Type.CHAR:
            case Type.SHORT:
            case Type.INT:
                return Opcodes.INTEGER;
            case Type.LONG:
                return Opcodes.LONG;
            case Type.FLOAT:
                return Opcodes.FLOAT;
            case Type.DOUBLE:
                return Opcodes.DOUBLE;
            default:
                return type.getInternalName();
        }
    }

    private static int slotsOf(Object frameEntry) {
        return frameEntry == Opcodes.LONG || frameEntry == Opcodes.DOUBLE ? 2 : 1;
    }

    /**
     * The advice's code as it is copied in: slots moved to {@code base}, returns turned into
     * jumps to {@code done}, labels and frames translated. It has no delegate: what it does not
     * forward explicitly (line numbers, local variable names, annotations, attributes, the
     * advice's own maxima) is dropped.
     */
    private final class Copy extends MethodVisitor {
        private final AdviceMethod advice;
        private final int base;
        private final List<Object> phase;
        private final Label done;
        private final Map<Label, Label> labels = new HashMap<>();
        /** The woven method's writer (this visitor's own delegate is null: see above). */
        private final MethodVisitor out = AdvisedMethod.this.mv;

        Copy(AdviceMethod advice, int base, List<Object> phase, Label done) {
            super(Opcodes.ASM9);
            this.advice = advice;
            this.base = base;
            this.phase = phase;
            this.done = done;
        }

        private Label mapped(Label label) {
            Label copy = labels.get(label); // not computeIfAbsent(key, lambda): weaving runs on start-up
            if (copy == null) {
                copy = new Label();
                labels.put(label, copy);
            }
            return copy;
        }

        private Label[] mapped(Label[] original) {
            Label[] copies = new Label[original.length];
            for (int i = 0; i < original.length; i++) {
                copies[i] = mapped(original[i]);
            }
            return copies;
        }

        private Object[] mappedEntries(int count, Object[] entries) {
            Object[] copies = Arrays.copyOf(entries, count);
            for (int i = 0; i < count; i++) {
                if (copies[i] instanceof Label) {
                    copies[i] = mapped((Label) copies[i]);
                }
            }
            return copies;
        }

        @Override
        public void visitFrame(int type, int numLocal, Object[] local, int numStack, Object[] stack) {
            List<Object> locals = new ArrayList<>(phase);
            locals.addAll(Arrays.asList(mappedEntries(numLocal, local)));
            out.visitFrame(Opcodes.F_NEW, locals.size(), locals.toArray(), numStack, mappedEntries(numStack, stack));
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
                if (opcode != Opcodes.RETURN) {
                    out.visitVarInsn(advice.returnType().getOpcode(Opcodes.ISTORE), enterSlot);
                }
                int slot = base;
                for (AdviceMethod.Parameter parameter : advice.parameters) {
                    if (parameter.writable) {
                        writeBack(advice, parameter, slot);
                    }
                    slot += parameter.type.getSize();
                }
                out.visitJumpInsn(Opcodes.GOTO, done);
                return;
            }
            out.visitInsn(opcode);
        }

        @Override
        public void visitIntInsn(int opcode, int operand) {
            out.visitIntInsn(opcode, operand);
        }

        @Override
        public void visitVarInsn(int opcode, int slot) {
            out.visitVarInsn(opcode, base + slot);
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
            out.visitTypeInsn(opcode, type);
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            out.visitFieldInsn(opcode, owner, name, descriptor);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            out.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap, Object... arguments) {
            throw new IllegalStateException(advice + ": invokedynamic should have been refused when it was read");
        }

        @Override
        public void visitJumpInsn(int opcode, Label label) {
            out.visitJumpInsn(opcode, mapped(label));
        }

        @Override
        public void visitLabel(Label label) {
            out.visitLabel(mapped(label));
        }

        @Override
        public void visitLdcInsn(Object value) {
            out.visitLdcInsn(value);
        }

        @Override
        public void visitIincInsn(int slot, int increment) {
            out.visitIincInsn(base + slot, increment);
        }

        @Override
        public void visitTableSwitchInsn(int min, int max, Label dflt, Label... cases) {
            out.visitTableSwitchInsn(min, max, mapped(dflt), mapped(cases));
        }

        @Override
        public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] cases) {
            out.visitLookupSwitchInsn(mapped(dflt), keys, mapped(cases));
        }

        @Override
        public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
            out.visitMultiANewArrayInsn(descriptor, numDimensions);
        }

        @Override
        public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
            out.visitTryCatchBlock(mapped(start), mapped(end), mapped(handler), type);
        }
    }
}
