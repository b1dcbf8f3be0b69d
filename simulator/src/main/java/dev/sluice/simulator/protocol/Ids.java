package dev.sluice.simulator.protocol;

import java.util.concurrent.atomic.AtomicLong;

/** Provider-looking identifiers (chatcmpl-..., msg_..., req_...), unique within a process. */
public final class Ids {
  private static final AtomicLong NEXT = new AtomicLong(1);

  private Ids() {}

  public static String next(String prefix) {
    return prefix + String.format("sim%021d", NEXT.getAndIncrement());
  }
}
