package dev.sluice.benchmarks.overhead;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/** The JVM's diagnostic commands ({@code jcmd <pid> ...}) run from inside, through the platform MBean server. */
final class JvmDiagnostics {

    private JvmDiagnostics() {}

    /**
     * The text a diagnostic command prints, by its MBean operation's name: {@code gcHeapInfo} for
     * {@code GC.heap_info}, {@code compilerCodecache} for {@code Compiler.codecache}, and so on.
     */
    static String run(String operation) throws Exception {
        return String.valueOf(ManagementFactory.getPlatformMBeanServer()
                .invoke(
                        new ObjectName("com.sun.management:type=DiagnosticCommand"),
                        operation,
                        new Object[] {new String[0]},
                        new String[] {String[].class.getName()}));
    }
}
