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
    python3 benchmarks/scripts/startup-verification.py ROUNDS AGENT_JAR
JDKs as startup-rounds.py: java on the PATH, and $JAVA25_HOME/bin/java when it is set.
"""
import importlib.util
import os
import statistics
import sys

NO_VERIFY = ['-XX:+UnlockDiagnosticVMOptions', '-XX:-BytecodeVerificationRemote']
NOT_VERIFIED = ', not verified'


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
    # startup-rounds.py's own commands (its JDKs, its one-call app), each once more unverified
    cmds = []
    for name, command in sr.commands(['openai'], ['none', jar]):
        cmds.append((name, command))
        cmds.append((name + NOT_VERIFIED, command[:1] + NO_VERIFY + command[1:]))
    results, loads = sr.run(rounds, cmds)
    median = {name: statistics.median(results[name]['wall']) for name, _ in cmds}
    for name, _ in cmds:
        print('%-50s median %5.0f ms  min %5.0f ms' % (name, median[name], min(results[name]['wall'])))
    for name, _ in cmds:
        jdk, variant = name.split(', ', 1)
        if variant == 'no agent' or variant.endswith(NOT_VERIFIED):
            continue
        verified = median[name] - median[jdk + ', no agent']
        unverified = median[name + NOT_VERIFIED] - median[jdk + ', no agent' + NOT_VERIFIED]
        print('%s, %d rounds: the agent adds %+.0f ms verified, %+.0f ms not verified: verification %+.0f ms'
              % (jdk, rounds, verified, unverified, verified - unverified))
    print('1-minute load average at the start and after each round: %s' % ' '.join('%.1f' % l for l in loads))


if __name__ == '__main__':
    main()
