package dev.sluice.instrumentation.api.fakehelper;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hook;
import dev.sluice.instrumentation.api.fake.FakeLibrary;

/** A helper typed against the fake library: it must link to the copy of the library it serves. */
public final class FakeHook implements Hook {
    @Override
    public CallOutcome enter(int site, Object self, Object[] args) {
        FakeLibrary library = (FakeLibrary) self;
        return CallOutcome.response(
                FakeLibrary.class.getClassLoader() == library.getClass().getClassLoader()
                        ? "helper in " + getClass().getClassLoader()
                        : "wrong library copy");
    }
}
