import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as apps from 'kubernetes-models/apps/v1';
import * as autoscaling from 'kubernetes-models/autoscaling/v2';
import * as batch from 'kubernetes-models/batch/v1';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as core from 'kubernetes-models/v1';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { parseAllDocuments } from 'yaml';
import { isPinnedImage } from './image-reference';

/**
 * Checks of deploy/k8s that need no cluster: `kubectl kustomize` renders a kustomization, every
 * object is validated against the Kubernetes OpenAPI schemas (kubernetes-models), and the
 * references between objects a schema cannot see are followed (selectors, names, ports).
 * Used by deploy-files.spec.ts.
 */

/** The Kubernetes release whose OpenAPI schemas kubernetes-models 4.5.x compiles (its changelog: "Update schema version to v1.33.0"). */
export const KUBERNETES_SCHEMA_VERSION = '1.33.0';

/** A rendered object, before validation: what every Kubernetes object has. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

type ModelClass = { kind?: string; prototype: { validate(): void } };

/**
 * The API groups and versions we accept: GA ones only. kubernetes-models also carries APIs that
 * releases since removed (policy/v1beta1, extensions/v1beta1, …), which a current cluster refuses.
 */
const MODELS: Record<string, Record<string, unknown>> = {
  v1: core,
  'apps/v1': apps,
  'autoscaling/v2': autoscaling,
  'batch/v1': batch,
  'networking.k8s.io/v1': networking,
  'policy/v1': policy,
};

/** `kubectl` for rendering: TEST_KUBECTL, else the one on PATH. */
export function kubectlPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEST_KUBECTL || 'kubectl';
}

/** Why kubectl cannot render deploy/k8s here, or undefined when it can. */
export function kubectlProblem(kubectl: string): string | undefined {
  try {
    execFileSync(kubectl, ['version', '--client'], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : String((err as Error).message);
    return (
      `kubectl (${kubectl}): ${reason}. The deployment checks render deploy/k8s with \`kubectl kustomize\`, which needs ` +
      'kubectl 1.27 or later (kustomize v5). Install it from the Kubernetes project (https://kubernetes.io/docs/tasks/tools/; ' +
      "Debian's kubernetes-client package is 1.20, too old for these overlays) or set TEST_KUBECTL to its path."
    );
  }
}

/** deploy/k8s/base and every directory under deploy/k8s/overlays, relative to `k8sRoot`. */
export function kustomizations(k8sRoot: string): string[] {
  const overlays = readdirSync(join(k8sRoot, 'overlays'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(k8sRoot, 'overlays', d.name, 'kustomization.yaml')))
    .map((d) => `overlays/${d.name}`)
    .sort();
  return ['base', ...overlays];
}

/** `kubectl kustomize <dir>`, parsed. Throws with kubectl's own message when it cannot render. */
export function render(kubectl: string, dir: string): K8sObject[] {
  let out: string;
  try {
    out = execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', stdio: 'pipe', maxBuffer: 16 << 20 });
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
    throw new Error(`kubectl kustomize ${dir} failed: ${stderr || (err as Error).message}`);
  }
  return parseManifests(out, dir);
}

/** The objects of a multi-document YAML stream; a syntax error or a document that is no object throws. */
export function parseManifests(text: string, source: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`${source}: ${doc.errors[0].message}`);
    const value: unknown = doc.toJS();
    if (value === null) continue;
    const o = value as Partial<K8sObject>;
    if (typeof o !== 'object' || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string')
      throw new Error(`${source}: a document without apiVersion, kind and metadata.name`);
    objects.push(o as K8sObject);
  }
  return objects;
}

/** `Kind namespace/name`, as the findings name objects. */
export function identify(o: K8sObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/**
 * What the schema of the object's kind says against it: an unknown kind, a value of the wrong
 * type or format, a missing required field, or a field the kind does not have (what
 * `kubectl apply` refuses since 1.27 with its default `--validate=strict`). The validators
 * kubernetes-models compiles read every field they know; the object is handed to them behind a
 * proxy that notes each read, so a field never read is one the schema does not know.
 */
export function schemaProblems(o: K8sObject): string[] {
  const model = MODELS[o.apiVersion]?.[o.kind] as ModelClass | undefined;
  if (!model || model.kind !== o.kind)
    return [
      `${identify(o)}: no schema for ${o.apiVersion} ${o.kind} in Kubernetes ${KUBERNETES_SCHEMA_VERSION} ` +
        `(kubernetes-models; accepted API versions: ${Object.keys(MODELS).join(', ')})`,
    ];
  const { proxy, unread } = readTracker(structuredClone(o));
  try {
    model.prototype.validate.call(proxy);
  } catch (err) {
    return [`${identify(o)}: ${(err as Error).message}`];
  }
  return unread().map((path) => `${identify(o)}: unknown field ${path}`);
}

function readTracker(root: object): { proxy: object; unread: () => string[] } {
  const reads = new Map<object, { path: string; keys: Set<string> }>();
  const proxies = new WeakMap<object, object>();
  const wrap = (value: unknown, path: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const known = proxies.get(value);
    if (known) return known;
    reads.set(value, { path, keys: new Set() });
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (typeof key !== 'string') return value;
        reads.get(target)?.keys.add(key);
        return wrap(value, `${path}${Array.isArray(target) ? `[${key}]` : `.${key}`}`);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  const proxy = wrap(root, '') as object;
  const unread = () =>
    [...reads]
      .filter(([value]) => !Array.isArray(value))
      .flatMap(([value, { path, keys }]) => Object.keys(value).filter((k) => !keys.has(k)).map((k) => `${path}.${k}`.replace(/^\./, '')));
  return { proxy, unread };
}

/** Secrets the manifests use that are made out of band, each with the file that says how. */
export type ExternalSecrets = Record<string, string>;

export interface ReferenceOptions {
  /** Secrets not in the render (deliberately: credentials stay out of git), by name, with where they are documented. */
  externalSecrets: ExternalSecrets;
  /** Refuse `:latest` and untagged images (every overlay; the base keeps placeholders). */
  pinnedImages: boolean;
}

/**
 * What a schema cannot see: references between the objects of one render. Assumes the objects
 * passed schemaProblems.
 */
export function referenceProblems(objects: K8sObject[], options: ReferenceOptions): string[] {
  const problems: string[] = [];
  const byKind = <T>(kind: string) => objects.filter((o): o is T & K8sObject => o.kind === kind);
  const deployments = byKind<IDeployment>('Deployment');
  const podLabels = (d: IDeployment) => d.spec?.template.metadata?.labels ?? {};
  const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
    !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
  const sameNamespace = (a: K8sObject, b: K8sObject) => (a.metadata.namespace ?? '') === (b.metadata.namespace ?? '');
  const containersOf = (d: IDeployment): IContainer[] => [...(d.spec?.template.spec?.initContainers ?? []), ...(d.spec?.template.spec?.containers ?? [])];

  // Each Deployment's selector picks its own pods (the API server refuses it otherwise).
  for (const d of deployments)
    if (!selects(d.spec?.selector.matchLabels, podLabels(d))) problems.push(`${identify(d)}: spec.selector does not match its pod template's labels`);

  // Services: the selector picks the pods of a Deployment, and each named target port is theirs, with the same protocol.
  for (const s of byKind<IService>('Service')) {
    const targets = deployments.filter((d) => sameNamespace(d, s) && selects(s.spec?.selector, podLabels(d)));
    if (!targets.length) {
      problems.push(`${identify(s)}: spec.selector ${JSON.stringify(s.spec?.selector ?? {})} matches no Deployment's pods`);
      continue;
    }
    for (const port of s.spec?.ports ?? [])
      for (const d of targets) {
        const target = port.targetPort ?? port.port;
        const found = (d.spec?.template.spec?.containers ?? [])
          .flatMap((c) => c.ports ?? [])
          .find((p) => (typeof target === 'string' ? p.name === target : p.containerPort === target));
        if (!found) problems.push(`${identify(s)}: port ${port.name ?? port.port} targets ${target}, which ${identify(d)} does not declare`);
        else if ((found.protocol ?? 'TCP') !== (port.protocol ?? 'TCP'))
          problems.push(`${identify(s)}: port ${port.name ?? port.port} is ${port.protocol ?? 'TCP'}, ${identify(d)}'s ${target} is ${found.protocol ?? 'TCP'}`);
      }
  }

  // Container ports: one name means one number and protocol everywhere; probes and the scrape annotation use declared ports.
  const portNames = new Map<string, { number: number; protocol: string; where: string }>();
  for (const d of deployments) {
    const declared = (d.spec?.template.spec?.containers ?? []).flatMap((c) => c.ports ?? []);
    for (const c of containersOf(d)) {
      for (const p of c.ports ?? []) {
        if (!p.name) continue;
        const seen = portNames.get(p.name);
        const protocol = p.protocol ?? 'TCP';
        if (!seen) portNames.set(p.name, { number: p.containerPort, protocol, where: identify(d) });
        else if (seen.number !== p.containerPort || seen.protocol !== protocol)
          problems.push(`${identify(d)}: port name ${p.name} is ${p.containerPort}/${protocol} here and ${seen.number}/${seen.protocol} in ${seen.where}`);
      }
      for (const [probeName, probe] of [
        ['startupProbe', c.startupProbe],
        ['livenessProbe', c.livenessProbe],
        ['readinessProbe', c.readinessProbe],
      ] as const) {
        const port = probe?.httpGet?.port ?? probe?.tcpSocket?.port;
        if (typeof port === 'string' && !(c.ports ?? []).some((p) => p.name === port))
          problems.push(`${identify(d)}: container ${c.name}'s ${probeName} uses port ${port}, which the container does not declare`);
      }
    }
    const scrape = d.spec?.template.metadata?.annotations?.['prometheus.io/port'];
    if (scrape !== undefined && !declared.some((p) => String(p.containerPort) === scrape))
      problems.push(`${identify(d)}: prometheus.io/port ${scrape} is no container port of the pod`);
  }

  // ConfigMaps and Secrets referred to by name: in the render, or made out of band as documented.
  const has = (kind: string, name: string, from: K8sObject) => objects.some((o) => o.kind === kind && o.metadata.name === name && sameNamespace(o, from));
  const refer = (d: K8sObject, kind: 'ConfigMap' | 'Secret', name: string | undefined, field: string) => {
    if (!name) return problems.push(`${identify(d)}: ${field} names no ${kind}`);
    if (has(kind, name, d) || (kind === 'Secret' && name in options.externalSecrets)) return;
    problems.push(`${identify(d)}: ${field} names ${kind} ${name}, which is neither in the render nor a documented external Secret`);
  };
  for (const d of deployments) {
    for (const c of containersOf(d)) {
      for (const from of c.envFrom ?? []) {
        if (from.configMapRef) refer(d, 'ConfigMap', from.configMapRef.name, `container ${c.name} envFrom configMapRef`);
        if (from.secretRef) refer(d, 'Secret', from.secretRef.name, `container ${c.name} envFrom secretRef`);
      }
      for (const e of c.env ?? []) {
        if (e.valueFrom?.configMapKeyRef) refer(d, 'ConfigMap', e.valueFrom.configMapKeyRef.name, `container ${c.name} env ${e.name}`);
        if (e.valueFrom?.secretKeyRef) refer(d, 'Secret', e.valueFrom.secretKeyRef.name, `container ${c.name} env ${e.name}`);
      }
    }
    for (const v of d.spec?.template.spec?.volumes ?? []) {
      if (v.configMap) refer(d, 'ConfigMap', v.configMap.name, `volume ${v.name}`);
      if (v.secret) refer(d, 'Secret', v.secret.secretName, `volume ${v.name}`);
    }
  }

  // Autoscalers and disruption budgets point at Deployments of the render; stable Deployments have a budget.
  for (const h of byKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler')) {
    const ref = h.spec?.scaleTargetRef;
    const target = deployments.find((d) => ref?.kind === 'Deployment' && d.metadata.name === ref.name && sameNamespace(d, h));
    if (!target) problems.push(`${identify(h)}: scaleTargetRef ${ref?.kind} ${ref?.name} is not in the render`);
    else if (target.spec?.replicas !== undefined) problems.push(`${identify(h)}: ${identify(target)} sets spec.replicas, which kubectl apply would reset under the autoscaler`);
  }
  const budgets = byKind<IPodDisruptionBudget>('PodDisruptionBudget');
  for (const b of budgets)
    if (!deployments.some((d) => sameNamespace(d, b) && selects(b.spec?.selector?.matchLabels, podLabels(d))))
      problems.push(`${identify(b)}: spec.selector matches no Deployment's pods`);
  for (const d of deployments)
    if (podLabels(d)['app.kubernetes.io/track'] === 'stable' && !budgets.some((b) => sameNamespace(d, b) && selects(b.spec?.selector?.matchLabels, podLabels(d))))
      problems.push(`${identify(d)}: no PodDisruptionBudget selects its pods`);

  // A canary is its component's stable Deployment on another image: same pod spec and annotations otherwise.
  for (const canary of deployments.filter((d) => podLabels(d)['app.kubernetes.io/track'] === 'canary')) {
    const component = podLabels(canary)['app.kubernetes.io/component'];
    const stable = deployments.find(
      (d) => sameNamespace(d, canary) && podLabels(d)['app.kubernetes.io/component'] === component && podLabels(d)['app.kubernetes.io/track'] === 'stable',
    );
    if (!stable) {
      problems.push(`${identify(canary)}: a canary of ${component} with no stable Deployment of ${component}`);
      continue;
    }
    const podSpec = (d: IDeployment) => JSON.stringify({ ...d.spec?.template, metadata: { annotations: d.spec?.template.metadata?.annotations } }, (k, v: unknown) => (k === 'image' ? undefined : v));
    if (podSpec(canary) !== podSpec(stable)) problems.push(`${identify(canary)}: its pod template differs from ${identify(stable)}'s in more than the image`);
  }

  if (options.pinnedImages)
    for (const d of deployments)
      for (const c of containersOf(d))
        if (!isPinnedImage(c.image ?? ''))
          problems.push(`${identify(d)}: container ${c.name} runs ${c.image}, not a pinned tag`);

  return problems;
}
