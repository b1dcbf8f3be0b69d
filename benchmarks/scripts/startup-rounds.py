#!/usr/bin/env python3
"""Start-up time the agent adds, measured in interleaved rounds (docs/startup-figures.md).

Each round runs every command once, in a shuffled order, so load drifting on a shared machine
hits all commands alike; the first round is a warm-up and is not counted. Wall time is
perf_counter around the process, CPU is user + system of the child (getrusage).

Run from the repository root after
    mvn -B -q -pl agent,integration-tests -am package -DskipTests
with two loopback servers:
    mkdir -p /tmp/www && echo ok > /tmp/www/v1 && python3 -m http.server 18777 --bind 127.0.0.1 -d /tmp/www &
    python3 benchmarks/scripts/startup-chat-server.py 18778 &
then:
    python3 benchmarks/scripts/startup-rounds.py ROUNDS APPS AGENT_JAR[=ARGS] ...
e.g. python3 benchmarks/scripts/startup-rounds.py 7 hello,okhttp,openai none agent/target/sluice-agent.jar
or, with the floors: python3 benchmarks/scripts/startup-rounds.py 15 hello,okhttp,openai none empty-agent transformer-agent agent/target/sluice-agent.jar

APPS: hello (prints a line), okhttp (one OkHttp GET at once), openai (one openai-java chat
completion at once, to api.openai.com mapped to 127.0.0.1 by a hosts file). 'none' runs without
the agent. Two floors any agent pays, built here with javac and jar: 'empty-agent' (a premain
that does nothing) and 'transformer-agent' (a premain that adds one class-file transformer that
changes nothing). JDKs: java on the PATH (JDK 17 here) and $JAVA25_HOME/bin/java when set.
"""
import glob
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time


OPENAI_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>startup-openai</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>com.openai</groupId><artifactId>openai-java</artifactId><version>4.101.0</version></dependency>
  </dependencies>
</project>
"""


def classpath_openai():
    """integration-tests' test classes (OpenAiOneCallApp) and openai-java 4.101.0 with its dependencies."""
    work = tempfile.mkdtemp(prefix='sluice-openai-')
    with open(os.path.join(work, 'pom.xml'), 'w') as f:
        f.write(OPENAI_POM)
    out = os.path.join(work, 'cp.txt')
    subprocess.run(['mvn', '-B', '-q', '-f', os.path.join(work, 'pom.xml'), 'dependency:build-classpath',
                    '-Dmdep.outputFile=' + out], check=True)
    return 'integration-tests/target/test-classes:' + open(out).read().strip()


# kind: (class name, source)
FLOOR_AGENTS = {
    'empty-agent': ('EmptyAgent', """package floor;
public final class EmptyAgent {
    public static void premain(String args, java.lang.instrument.Instrumentation inst) {}
}
"""),
    'transformer-agent': ('TransformerAgent', """package floor;
public final class TransformerAgent {
    public static void premain(String args, java.lang.instrument.Instrumentation inst) {
        inst.addTransformer(new java.lang.instrument.ClassFileTransformer() {
            @Override
            public byte[] transform(ClassLoader loader, String name, Class<?> redefined,
                    java.security.ProtectionDomain domain, byte[] bytes) {
                return null; // sees every class, changes none
            }
        }, true);
    }
}
"""),
}


def floor_agent(kind):
    """Builds one of FLOOR_AGENTS into a jar of its own; returns the jar's path."""
    work = tempfile.mkdtemp(prefix='sluice-floor-')
    name, source = FLOOR_AGENTS[kind]
    os.makedirs(os.path.join(work, 'src', 'floor'))
    with open(os.path.join(work, 'src', 'floor', name + '.java'), 'w') as f:
        f.write(source)
    with open(os.path.join(work, 'manifest.txt'), 'w') as f:
        f.write('Premain-Class: floor.%s\nCan-Retransform-Classes: true\n' % name)
    subprocess.run(['javac', '--release', '11', '-d', os.path.join(work, 'classes'),
                    os.path.join(work, 'src', 'floor', name + '.java')], check=True)
    jar = os.path.join(work, kind + '.jar')
    subprocess.run(['jar', 'cfm', jar, os.path.join(work, 'manifest.txt'), '-C', os.path.join(work, 'classes'), '.'],
                   check=True)
    return jar


def jdks():
    """(version, java command): java on the PATH (JDK 17 here), and $JAVA25_HOME's when it is set."""
    found = [('17', 'java')]
    if os.environ.get('JAVA25_HOME'):
        found.append(('25', os.path.join(os.environ['JAVA25_HOME'], 'bin', 'java')))
    return found


def hosts_file():
    """A hosts file (for -Djdk.net.hosts.file) that maps api.openai.com to loopback; returns its path."""
    hosts = os.path.join(tempfile.gettempdir(), 'sluice-hosts')
    with open(hosts, 'w') as f:
        f.write('127.0.0.1 api.openai.com\n')
    return hosts


def agents(jars):
    """(label, JVM options) for each AGENT_JAR argument: 'none', a floor agent's kind (built here), or a jar."""
    found = []
    for jar in jars:
        if jar == 'none':
            found.append(('no agent', []))
        else:
            path = floor_agent(jar) if jar in FLOOR_AGENTS else jar
            found.append((os.path.basename(path), ['-javaagent:' + path]))
    return found


def interleaved(rounds, cmds, after_round=None):
    """Yields (counted, command) for every command in each of rounds + 1 shuffled rounds; the first
    is a warm-up, not counted. Calls after_round() once each round is done."""
    for r in range(rounds + 1):
        order = cmds[:]
        random.shuffle(order)
        for c in order:
            yield r > 0, c
        if after_round:
            after_round()


def commands(apps, jars):
    okhttp_cp = 'agent/target/test-classes:' + ':'.join(sorted(glob.glob('agent/target/libs/okhttp-4/*.jar')))
    hosts = hosts_file()
    openai_cp = classpath_openai() if 'openai' in apps else None
    with_agents = agents(jars)
    cmds = []
    for app in apps:
        for jdk, java in jdks():
            for label, agent in with_agents:
                if app == 'hello':
                    c = [java] + agent + ['-cp', 'agent/target/test-classes', 'dev.sluice.testapp.HelloApp']
                elif app == 'okhttp':
                    c = [java] + agent + ['-cp', okhttp_cp, 'dev.sluice.testapp.StartupApp',
                                          'http://127.0.0.1:18777/v1']
                else:
                    c = [java] + agent + ['-Djdk.net.hosts.file=' + hosts, '-cp', openai_cp,
                                          'dev.sluice.it.apps.OpenAiOneCallApp', 'http://api.openai.com:18778/v1']
                cmds.append(('JDK %s %s, %s' % (jdk, app, label), c))
    return cmds


def run(rounds, cmds):
    results = {name: {'wall': [], 'cpu': []} for name, _ in cmds}
    loads = [os.getloadavg()[0]]
    for counted, (name, c) in interleaved(rounds, cmds, lambda: loads.append(os.getloadavg()[0])):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        p = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = (time.perf_counter() - started) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            print('FAILED', name, file=sys.stderr)
        if counted:
            results[name]['wall'].append(wall)
            results[name]['cpu'].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return results, loads


def table(cmds, results, loads):
    print('| Command | median [ms] | min [ms] | CPU median [ms] | added, median / min [ms] | CPU added [ms] |')
    print('|:---|---:|---:|---:|---:|---:|')
    base = {}
    for name, _ in cmds:
        wall, cpu = results[name]['wall'], results[name]['cpu']
        key, variant = re.match(r'(JDK \d+ \w+), (.*)', name).groups()
        med, low, cmed = statistics.median(wall), min(wall), statistics.median(cpu)
        if variant == 'no agent':
            base[key] = (med, low, cmed)
            added = cpu_added = ''
        elif key in base:
            added = '%+d / %+d' % (med - base[key][0], low - base[key][1])
            cpu_added = '%+d' % (cmed - base[key][2])
        else:
            added = cpu_added = ''
        print('| %s, %s | %.0f | %.0f | %.0f | %s | %s |' % (key, variant, med, low, cmed, added, cpu_added))
    print('runs per command: %d; 1-minute load average at the start and after each round: %s'
          % (len(results[cmds[0][0]]['wall']), ' '.join('%.1f' % l for l in loads)))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, apps, jars = int(sys.argv[1]), sys.argv[2].split(','), sys.argv[3:]
    cmds = commands(apps, jars)
    results, loads = run(rounds, cmds)
    table(cmds, results, loads)


if __name__ == '__main__':
    main()
