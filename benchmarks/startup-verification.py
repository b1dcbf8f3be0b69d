#!/usr/bin/env python3
"""What verifying the agent's classes costs a one-call openai-java process (docs/startup-figures.md).

The JVM verifies the bytecode of every class that the bootstrap loader did not define, so each of
the agent's classes is verified as it loads. This runs the one-call process of startup-rounds.py
four ways in interleaved rounds: without and with the agent, each with verification as usual and
with it switched off for every class (-XX:-BytecodeVerificationRemote, a diagnostic flag, for the
measurement only). The agent's added time with verification on, minus its added time with
verification off, is what verifying its classes (and loading the classes the verifier needs)
costs, since the application's own classes are verified or not alike in both pairs.

Same set-up as startup-rounds.py (the chat server on port 18778, the packaged agent), then:
    python3 benchmarks/startup-verification.py ROUNDS AGENT_JAR
JDK: $JAVA when set, else java on the PATH.
"""
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import time

NO_VERIFY = ['-XX:+UnlockDiagnosticVMOptions', '-XX:-BytecodeVerificationRemote']


def startup_rounds():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location('startup_rounds', os.path.join(here, 'startup-rounds.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rounds, jar = int(sys.argv[1]), sys.argv[2]
    sr = startup_rounds()
    classpath, hosts = sr.classpath_openai(), sr.hosts_file()
    java = os.environ.get('JAVA', 'java')
    variants = {
        'no agent': [],
        'no agent, not verified': NO_VERIFY,
        'agent': ['-javaagent:' + jar],
        'agent, not verified': NO_VERIFY + ['-javaagent:' + jar],
    }
    walls = {name: [] for name in variants}
    for r in range(rounds + 1):  # the first round warms the machine up and is not counted
        order = list(variants)
        random.shuffle(order)
        for name in order:
            command = [java] + variants[name] + ['-Djdk.net.hosts.file=' + hosts, '-cp', classpath,
                                                 'dev.sluice.it.apps.OpenAiOneCallApp',
                                                 'http://api.openai.com:18778/v1']
            started = time.perf_counter()
            done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            wall = (time.perf_counter() - started) * 1000
            if done.returncode != 0:
                print('FAILED', name, done.stderr.decode()[-400:], file=sys.stderr)
            if r > 0:
                walls[name].append(wall)
    median = {name: statistics.median(w) for name, w in walls.items()}
    for name, w in walls.items():
        print('%-24s median %5.0f ms  min %5.0f ms' % (name, median[name], min(w)))
    verified = median['agent'] - median['no agent']
    unverified = median['agent, not verified'] - median['no agent, not verified']
    print('%s, %d rounds: the agent adds %+.0f ms verified, %+.0f ms not verified: verification %+.0f ms'
          % (java, rounds, verified, unverified, verified - unverified))


if __name__ == '__main__':
    main()
