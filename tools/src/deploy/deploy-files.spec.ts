import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IService } from 'kubernetes-models/v1/Service';
import { register } from 'prom-client';
import { parse as parseYaml } from 'yaml';
import '@lorawan/observability';
import { composeProblems, parseCompose } from './compose-file';
import { dockerfileProblems } from './dockerfile-lint';
import {
  identify,
  kubectlPath,
  kubectlProblem,
  kustomizations,
  parseManifests,
  referenceProblems,
  render,
  schemaProblems,
  type ExternalSecrets,
  type K8sObject,
} from './kubernetes-manifests';

/**
 * The deployment files (deploy/, docker-compose.yml) are checked here, in the unit tier: every
 * kustomization renders and its objects validate against the Kubernetes schemas and against each
 * other, the Compose files against the Compose Specification, and the Dockerfile passes a linter.
 * Each check is also shown refusing a broken copy.
 */

const ROOT = join(__dirname, '..', '..', '..');
const K8S = join(ROOT, 'deploy', 'k8s');
const APPS = ['gateway', 'is', 'js', 'ns', 'as', 'events', 'gs'];

/** The Secrets the manifests use and git does not hold, each with the file that says how to make it. */
const EXTERNAL_SECRETS: ExternalSecrets = {
  'lorawan-secrets': 'deploy/k8s/base/secret.example.yaml',
  'lorawan-tls': 'deploy/k8s/overlays/tls/kustomization.yaml',
  'lorawan-nats-users': 'deploy/k8s/overlays/tls/kustomization.yaml',
};

const clone = <T>(value: T): T => structuredClone(value);

describe('Kubernetes manifests (deploy/k8s)', () => {
  const kubectl = kubectlPath();
  const renders = new Map<string, K8sObject[]>();

  beforeAll(() => {
    const problem = kubectlProblem(kubectl);
    if (problem) throw new Error(problem);
  });

  const rendered = (dir: string) => {
    if (!renders.has(dir)) renders.set(dir, render(kubectl, join(K8S, dir)));
    return renders.get(dir) ?? [];
  };
  const find = <T>(objects: K8sObject[], kind: string, objectName: string) => {
    const o = objects.find((x) => x.kind === kind && x.metadata.name === objectName);
    if (!o) throw new Error(`no ${kind} ${objectName}`);
    return o as unknown as T & K8sObject;
  };

  it('finds the base and the overlays', () => {
    expect(kustomizations(K8S)).toEqual(['base', 'overlays/canary-ns', 'overlays/production', 'overlays/tls']);
  });

  it.each(kustomizations(K8S))('%s renders, validates against the schemas, and its references hold', (dir) => {
    const objects = rendered(dir);
    expect(objects.length).toBeGreaterThan(0);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
    expect(referenceProblems(objects, { externalSecrets: EXTERNAL_SECRETS, pinnedImages: dir !== 'base' })).toEqual([]);
  });

  it('runs every app, and takes Semtech UDP on a Service that keeps each gateway on one gs replica', () => {
    const objects = rendered('overlays/production');
    const components = objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.labels?.['app.kubernetes.io/component']);
    expect(components.sort()).toEqual([...APPS].sort());
    const udp = find<IService>(objects, 'Service', 'gs-udp');
    expect(udp.spec).toMatchObject({
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      sessionAffinity: 'ClientIP',
      selector: { 'app.kubernetes.io/component': 'gs' },
      ports: [{ port: 1700, protocol: 'UDP', targetPort: 'semtech-udp' }],
    });
    // LoRa Basics Station: ws and wss over TCP, on a Service of their own.
    expect(find<IService>(objects, 'Service', 'gs-lbs').spec).toMatchObject({
      type: 'LoadBalancer',
      selector: { 'app.kubernetes.io/component': 'gs' },
      ports: [
        { port: 1887, protocol: 'TCP', targetPort: 'lbs' },
        { port: 8887, protocol: 'TCP', targetPort: 'lbs-tls' },
      ],
    });
  });

  it('documents every external Secret where it says', () => {
    const example = parseManifests(readFileSync(join(ROOT, EXTERNAL_SECRETS['lorawan-secrets']), 'utf8'), 'secret.example.yaml');
    expect(example.map(identify)).toEqual(['Secret lorawan-secrets']);
    expect(example.flatMap(schemaProblems)).toEqual([]);
    for (const [secret, file] of Object.entries(EXTERNAL_SECRETS))
      if (secret !== 'lorawan-secrets') expect(readFileSync(join(ROOT, file), 'utf8')).toContain(`create secret generic ${secret}`);
  });

  it('names how to get kubectl when there is none', () => {
    expect(kubectlProblem('/nonexistent/kubectl')).toMatch(/^kubectl \(\/nonexistent\/kubectl\): not found\. .*kubectl 1\.27 or later.*TEST_KUBECTL/);
  });

  it('fails with kubectl’s message when a kustomization does not render', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
    try {
      writeFileSync(join(dir, 'kustomization.yaml'), 'resources:\n  - missing.yaml\n');
      expect(() => render(kubectl, dir)).toThrow(/kubectl kustomize .* failed: .*missing\.yaml/s);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('refuses a broken copy', () => {
    const production = () => clone(rendered('overlays/production'));
    const options = { externalSecrets: EXTERNAL_SECRETS, pinnedImages: true };

    it('of a kind it has no schema for', () => {
      const pdb = clone(find<K8sObject>(production(), 'PodDisruptionBudget', 'ns'));
      expect(schemaProblems({ ...pdb, apiVersion: 'policy/v1beta1' })).toEqual([expect.stringMatching(/PodDisruptionBudget lorawan\/ns: no schema for policy\/v1beta1/)]);
      expect(schemaProblems({ ...pdb, kind: 'Rollout' })).toEqual([expect.stringMatching(/Rollout lorawan\/ns: no schema for policy\/v1 Rollout/)]);
    });

    it('with a value of the wrong type', () => {
      const gateway = find<IDeployment>(production(), 'Deployment', 'gateway');
      Object.assign(gateway.spec ?? {}, { replicas: 'three' });
      expect(schemaProblems(gateway)).toEqual([expect.stringMatching(/Deployment lorawan\/gateway: .*spec\/replicas must be integer/)]);
    });

    it('with a field its kind does not have', () => {
      const udp = find<IService>(production(), 'Service', 'gs-udp');
      Object.assign(udp.spec ?? {}, { sessionAfinity: 'ClientIP' });
      Object.assign(udp.spec?.ports?.[0] ?? {}, { protocl: 'UDP' });
      expect(schemaProblems(udp)).toEqual(['Service lorawan/gs-udp: unknown field spec.sessionAfinity', 'Service lorawan/gs-udp: unknown field spec.ports[0].protocl']);
    });

    it('whose Service selects no pods, or targets a port of the wrong protocol', () => {
      const objects = production();
      const udp = find<IService>(objects, 'Service', 'gs-udp');
      Object.assign(udp.spec?.ports?.[0] ?? {}, { protocol: 'TCP' });
      Object.assign(find<IService>(objects, 'Service', 'gateway').spec?.selector ?? {}, { 'app.kubernetes.io/component': 'gatewy' });
      expect(referenceProblems(objects, options)).toEqual([
        expect.stringMatching(/^Service lorawan\/gateway: spec.selector .* matches no Deployment's pods$/),
        "Service lorawan/gs-udp: port semtech-udp is TCP, Deployment lorawan/gs's semtech-udp is UDP",
      ]);
    });

    it('that names a ConfigMap or Secret nobody makes', () => {
      const objects = production();
      const is = find<IDeployment>(objects, 'Deployment', 'is');
      const container = is.spec?.template.spec?.containers[0];
      if (!container?.envFrom?.[1]?.secretRef) throw new Error('is has no envFrom secretRef');
      container.envFrom[1].secretRef.name = 'lorawan-secret';
      expect(referenceProblems(objects, options)).toEqual([
        'Deployment lorawan/is: container is envFrom secretRef names Secret lorawan-secret, which is neither in the render nor a documented external Secret',
      ]);
      expect(referenceProblems(objects.filter((o) => o.kind !== 'ConfigMap'), options)).toContain(
        'Deployment lorawan/is: container is envFrom configMapRef names ConfigMap ' +
          `${String(container.envFrom[0]?.configMapRef?.name)}, which is neither in the render nor a documented external Secret`,
      );
    });

    it('whose port names disagree, or whose probe or scrape port is undeclared', () => {
      const objects = production();
      const as = find<IDeployment>(objects, 'Deployment', 'as');
      const container = as.spec?.template.spec?.containers[0];
      if (!container?.ports?.[0] || !container.readinessProbe?.httpGet) throw new Error('as has no port or readiness probe');
      container.ports[0].containerPort = 8081;
      container.readinessProbe.httpGet.port = 'healthz';
      const problems = referenceProblems(objects, options);
      expect(problems).toEqual(
        expect.arrayContaining([
          "Deployment lorawan/as: container as's readinessProbe uses port healthz, which the container does not declare",
          'Deployment lorawan/as: prometheus.io/port 8080 is no container port of the pod',
        ]),
      );
      // Every other Deployment's "health" (8080) now disagrees with the one as declares.
      expect(problems.filter((p) => p.includes('port name health'))).toEqual(
        ['events', 'gs', 'is', 'js', 'ns'].map((d) => `Deployment lorawan/${d}: port name health is 8080/TCP here and 8081/TCP in Deployment lorawan/as`),
      );
    });

    it('with an unpinned image, a Deployment without a disruption budget, or an autoscaler that fights kubectl apply', () => {
      const objects = production().filter((o) => !(o.kind === 'PodDisruptionBudget' && o.metadata.name === 'gs'));
      const gs = find<IDeployment>(objects, 'Deployment', 'gs');
      const container = gs.spec?.template.spec?.containers[0];
      if (!container) throw new Error('gs has no container');
      container.image = 'ghcr.io/example/lorawan-stack-gs:latest';
      Object.assign(find<IDeployment>(objects, 'Deployment', 'ns').spec ?? {}, { replicas: 3 });
      expect(referenceProblems(objects, options)).toEqual([
        'HorizontalPodAutoscaler lorawan/ns: Deployment lorawan/ns sets spec.replicas, which kubectl apply would reset under the autoscaler',
        'Deployment lorawan/gs: no PodDisruptionBudget selects its pods',
        'Deployment lorawan/gs: container gs runs ghcr.io/example/lorawan-stack-gs:latest, not a pinned tag',
      ]);
    });

    it('whose canary drifted from the stable Deployment', () => {
      const objects = clone(rendered('overlays/canary-ns'));
      const canary = find<IDeployment>(objects, 'Deployment', 'ns-canary');
      expect(referenceProblems(objects, options)).toEqual([]);
      canary.spec?.template.spec?.containers[0]?.env?.pop();
      expect(referenceProblems(objects, options)).toEqual(["Deployment lorawan/ns-canary: its pod template differs from Deployment lorawan/ns's in more than the image"]);
    });
  });
});

describe('Compose files', () => {
  const files = [
    'docker-compose.yml',
    ...readdirSync(join(ROOT, 'deploy', 'compose'), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => relative(ROOT, join(ROOT, 'deploy', 'compose', f))),
  ];
  const compose = () => parseCompose(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), 'docker-compose.yml');

  it.each(files)('%s validates against the Compose Specification', (file) => {
    expect(composeProblems(parseCompose(readFileSync(join(ROOT, file), 'utf8'), file))).toEqual([]);
  });

  it('runs every app, and publishes the gs’s Semtech UDP port', () => {
    const services = compose().services as Record<string, { build?: { args?: { APP?: string } }; ports?: string[] }>;
    expect(Object.values(services).flatMap((s) => s.build?.args?.APP ?? []).sort()).toEqual([...APPS].sort());
    expect(services.gs?.ports).toContainEqual(expect.stringMatching(/:1700\/udp$/));
    expect(services.gs?.ports).toContainEqual(expect.stringMatching(/:1887$/));
  });

  it('refuses a broken copy', () => {
    const broken = compose() as { services: Record<string, Record<string, unknown>> };
    broken.services.gs.restartt = 'always';
    broken.services.gateway.ports = [{ published: 1885, targett: 1885 }];
    broken.services.ns.depends_on = 'nats';
    expect(composeProblems(broken)).toEqual(
      expect.arrayContaining(['/services/gs: must NOT have additional properties (restartt)', '/services/gateway/ports/0: must NOT have additional properties (targett)', '/services/ns/depends_on: must be array']),
    );
  });
});

describe('Prometheus alerting rules (deploy/prometheus)', () => {
  const file = join(ROOT, 'deploy', 'prometheus', 'gateway-alerts.rules.yml');
  const groups = (parseYaml(readFileSync(file, 'utf8')) as { groups: Array<{ name: string; rules: Array<Record<string, unknown>> }> }).groups;

  it('alert on gateways going offline, on the metrics the Gateway Server exports', () => {
    const rules = groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual(expect.arrayContaining(['GatewayOffline']));
    for (const rule of rules) {
      expect(typeof rule.expr).toBe('string');
      expect(rule.annotations).toMatchObject({ summary: expect.any(String) });
      for (const metric of (rule.expr as string).match(/lorawan_[a-z_]+/g) ?? []) expect({ metric, exported: register.getSingleMetric(metric) !== undefined }).toEqual({ metric, exported: true });
    }
  });
});

describe('Dockerfile (deploy/Dockerfile)', () => {
  const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  const line = (text: string, pattern: string) => text.split('\n').findIndex((l) => l.includes(pattern)) + 1;

  it('passes the linter', () => {
    expect(dockerfileProblems(dockerfile)).toEqual([]);
  });

  it('refuses a broken copy', () => {
    const broken = dockerfile
      .replace('ARG NODE_IMAGE=node:20-bookworm-slim', 'ARG NODE_IMAGE=node')
      .replace(' --no-install-recommends', '')
      .replace('WORKDIR /src', 'WORKDIR src')
      .replace('EXPOSE 1885 8080 1700/udp', 'EXPOSE 1885 8080 1700/sctp-ish')
      .replace('USER 1000:1000', 'USER root')
      .replace('CMD exec node', 'CMD node')
      .replace('COPY . .', 'ADD . .');
    expect(dockerfileProblems(broken)).toEqual([
      `line ${line(broken, 'WORKDIR src')}: WORKDIR paths should be absolute`,
      `line ${line(broken, 'EXPOSE')}: Invalid containerPort: 1700/sctp-ish`,
      `line ${line(broken, 'AS build')}: DL3006/DL3007: FROM node: pin the base image to a tag other than latest, or a digest`,
      `line ${line(broken, 'AS runtime')}: DL3006/DL3007: FROM node: pin the base image to a tag other than latest, or a digest`,
      `line ${line(broken, 'RUN apt-get update')}: DL3015: apt-get install without --no-install-recommends`,
      `line ${line(broken, 'ADD . .')}: DL3020: use COPY, not ADD, for files and folders`,
      `line ${line(broken, 'CMD node')}: signals: CMD in shell form must start with exec, so the process receives SIGTERM`,
      'DL3002: the final stage must switch to a user other than root',
    ]);
  });
});
