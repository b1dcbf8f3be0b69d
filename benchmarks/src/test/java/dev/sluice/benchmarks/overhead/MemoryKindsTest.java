package dev.sluice.benchmarks.overhead;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemoryKindsTest {

    /** As JDK 17's {@code jcmd <pid> GC.heap_info} prints it. */
    private static final String HEAP_INFO = " garbage-first heap   total 397312K, used 20404K"
            + " [0x0000000687400000, 0x0000000800000000)\n"
            + "  region size 4096K, 4 young (16384K), 0 survivors (0K)\n"
            + " Metaspace       used 8993K, committed 9152K, reserved 1114112K\n";

    /** As JDK 17's {@code jcmd <pid> Compiler.codecache} prints it. */
    private static final String CODE_CACHE =
            "CodeHeap 'non-profiled nmethods': size=120036Kb used=368Kb max_used=368Kb free=119667Kb\n"
                    + " bounds [0x00007f51b0ec7000, 0x00007f51b1137000, 0x00007f51b8400000]\n"
                    + "CodeHeap 'profiled nmethods': size=120032Kb used=1911Kb max_used=1911Kb free=118120Kb\n"
                    + " bounds [0x00007f51a9400000, 0x00007f51a9670000, 0x00007f51b0938000]\n"
                    + "CodeHeap 'non-nmethods': size=5692Kb used=1137Kb max_used=1155Kb free=4554Kb\n"
                    + " bounds [0x00007f51b0938000, 0x00007f51b0ba8000, 0x00007f51b0ec7000]\n"
                    + " total_blobs=1553 nmethods=1138 adapters=329\n";

    private final MemoryKinds kinds = MemoryKinds.of(HEAP_INFO, CODE_CACHE);

    @Test
    void sumsReferencedKilobytesByWhatEachMappingHolds() {
        String smaps = mapping("687400000-687800000 rw-p 00000000 00:00 0", 12)
                + mapping("7f0000000000-7f0000400000 rw-p 00000000 00:00 0", 0)
                + mapping("690000000-691000000 rw-p 00000000 00:00 0", 8)
                + mapping("7f51b0ec7000-7f51b1137000 rwxp 00000000 00:00 0", 20)
                + mapping("7f51b1137000-7f51b8400000 ---p 00000000 00:00 0", 0)
                + mapping("7f51a9400000-7f51a9670000 rwxp 00000000 00:00 0", 4)
                + mapping("7f51c0000000-7f51c0100000 r-xp 00000000 08:01 1234    /usr/lib/jvm/lib/server/libjvm.so", 16)
                + mapping("7f51d0000000-7f51d0021000 rw-p 00000000 00:00 0", 28)
                + mapping("7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]", 8);

        Map<String, Long> kb = kinds.referencedKb(smaps);

        assertThat(kb)
                .containsEntry("heap", 20L)
                .containsEntry("code: non-profiled nmethods", 20L)
                .containsEntry("code: profiled nmethods", 4L)
                .containsEntry("libjvm.so", 16L)
                .containsEntry("anonymous", 28L)
                .containsEntry("  anonymous 7f51d0000000-7f51d0021000 (132 kB)", 28L)
                .containsEntry("[stack]", 8L)
                .doesNotContainKey("code: non-nmethods")
                .doesNotContainKey("  anonymous 7f0000000000-7f0000400000 (4096 kB)");
    }

    @Test
    void findsThisJvmsHeapAndCodeInItsOwnMappings() throws Exception {
        Path smaps = Paths.get("/proc/self/smaps");
        assumeTrue(Files.isReadable(smaps), "Linux only");
        MemoryKinds own = MemoryKinds.of(JvmDiagnostics.run("gcHeapInfo"), JvmDiagnostics.run("compilerCodecache"));

        Map<String, Long> kb = own.referencedKb(Files.readString(smaps));

        assertThat(kb.get("heap")).isPositive();
        assertThat(kb.get("code: non-profiled nmethods")).isNotNull();
    }

    @Test
    void readsEachCodeHeapsCommittedPart() {
        assertThat(MemoryKinds.committedCode(CODE_CACHE))
                .containsExactly(
                        new long[] {0x7f51b0ec7000L, 0x7f51b1137000L},
                        new long[] {0x7f51a9400000L, 0x7f51a9670000L},
                        new long[] {0x7f51b0938000L, 0x7f51b0ba8000L});
    }

    @Test
    void tellsAMappingsFirstLineFromItsFields() {
        assertThat(MemoryKinds.isMappingHeader("7f51d0000000-7f51d0021000 rw-p 00000000 00:00 0"))
                .isTrue();
        assertThat(MemoryKinds.isMappingHeader("Referenced:          28 kB")).isFalse();
        // a field whose name is made of hexadecimal letters
        assertThat(MemoryKinds.isMappingHeader("AnonHugePages:         0 kB")).isFalse();
        assertThat(MemoryKinds.isMappingHeader("VmFlags: rd wr mr mw me ac sd")).isFalse();
    }

    @Test
    void refusesDiagnosticsWithoutBounds() {
        assertThatThrownBy(() -> MemoryKinds.of("no heap here", CODE_CACHE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no bounds");
    }

    /** One mapping as smaps shows it, with the fields before and after {@code Referenced}. */
    private static String mapping(String header, long referencedKb) {
        return header + "\n"
                + "Size:               4096 kB\n"
                + "Rss:                 " + referencedKb + " kB\n"
                + "Referenced:          " + referencedKb + " kB\n"
                + "Anonymous:           " + referencedKb + " kB\n"
                + "VmFlags: rd wr mr mw me ac sd\n";
    }
}
