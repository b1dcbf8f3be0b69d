package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void answersChatCompletions() throws Exception {
    try (Simulator sim = Simulator.builder().instant().start()) {
      var r = Http.post(sim.apiBaseUrl() + "/chat/completions",
          "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}",
          "Authorization", "Bearer sk-a");
      System.out.println(r.statusCode() + " " + r.headers().map() + "\n" + r.body());
      assertThat(r.statusCode()).isEqualTo(200);
      var s = Http.stream(sim.apiBaseUrl() + "/chat/completions",
          "{\"model\":\"gpt-4o-mini\",\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}",
          "Authorization", "Bearer sk-a", "x-sim-force", "truncated_stream");
      System.out.println(s.lines() + " " + s.failure());
      System.out.println(sim.ledger().toJson());
    }
  }
}
