package dev.sluice.core.state;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The file a {@link SavedState} lives in. Written whole to a sibling temporary file, then moved
 * over the old one, so a crash mid-write leaves the previous state, never half a document.
 */
public final class StateFile {

    private final Path path;

    public StateFile(Path path) {
        this.path = path;
    }

    public Path path() {
        return path;
    }

    public void write(SavedState state) throws IOException {
        Path dir = path.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        Files.write(tmp, state.toJson());
        try {
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The state saved here, or null when there is no file; a file that cannot be read is an IOException. */
    public SavedState read() throws IOException {
        if (!Files.exists(path)) {
            return null;
        }
        return SavedState.fromJson(Files.readAllBytes(path));
    }
}
