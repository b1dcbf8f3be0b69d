#!/usr/bin/env python3
"""What the agent adds to a service's first openai-java calls, step by step (docs/startup-figures.md).

Runs OpenAiFirstCallsApp (integration-tests) in interleaved, shuffled rounds, the first one a
warm-up: after DELAY_MS of idling (0: at once; 3000: a service whose first call comes once it is
up), it builds the client, then makes four chat completions in a row, and prints each step's
time. Reports the median of each step per JDK and agent, and what the agent adds to it.

Same set-up as startup-rounds.py (build, the chat server on 18778), then:
    python3 benchmarks/scripts/first-calls.py ROUNDS DELAY_MS AGENT_JAR ...
e.g. python3 benchmarks/scripts/first-calls.py 12 3000 none transformer-agent agent/target/sluice-agent.jar
"""
import importlib.util
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('startup_rounds', os.path.join(HERE, 'startup-rounds.py'))
startup_rounds = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(startup_rounds)

STEPS = ['client', 'call1', 'call2', 'call3', 'call4']


def commands(delay, jars):
    hosts = startup_rounds.hosts_file()
    cp = startup_rounds.classpath_openai()
    with_agents = startup_rounds.agents(jars)
    return [(jdk, label, [java] + agent + ['-Djdk.net.hosts.file=' + hosts, '-cp', cp,
                                           'dev.sluice.it.apps.OpenAiFirstCallsApp',
                                           'http://api.openai.com:18778/v1', str(delay)])
            for jdk, java in startup_rounds.jdks() for label, agent in with_agents]


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, delay, jars = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    cmds = commands(delay, jars)
    times = {(jdk, label): {s: [] for s in STEPS} for jdk, label, _ in cmds}
    for counted, (jdk, label, c) in startup_rounds.interleaved(rounds, cmds):
        out = subprocess.run(c, capture_output=True, text=True).stdout.split()
        if out[:1] != ['client']:
            print('FAILED', jdk, label, file=sys.stderr)
        elif counted:
            for step, micros in zip(out[0::2], out[1::2]):
                times[(jdk, label)][step].append(int(micros) / 1000)
    print('| JDK | agent | ' + ' | '.join(STEPS) + ' | client + call1 |')
    print('|---|---|' + '--:|' * (len(STEPS) + 1))
    medians = {}
    for key, t in times.items():
        if t['client']:  # a command whose every run failed has no row
            medians[key] = {s: statistics.median(t[s]) for s in STEPS}
            medians[key]['first'] = statistics.median([a + b for a, b in zip(t['client'], t['call1'])])
    for jdk, label, _ in cmds:
        med, base = medians.get((jdk, label)), medians.get((jdk, 'no agent'))
        if med is None:
            continue
        cells = []
        for s in STEPS + ['first']:
            if label == 'no agent' or base is None:
                cells.append('%.1f' % med[s])
            else:
                cells.append('%.1f (%+.1f)' % (med[s], med[s] - base[s]))
        print('| %s | %s | %s |' % (jdk, label, ' | '.join(cells)))
    print('medians of %d rounds, ms (added against no agent); delay before the client: %d ms; load average now %.1f'
          % (rounds, delay, os.getloadavg()[0]))


if __name__ == '__main__':
    main()
