// The Repo custom resource (issue #19, docs/architecture.md §10): a repo the operator registers with the bridge. Its bridge
// name is `spec.name`, else `metadata.name` (Kubernetes names cannot hold every identifier: no capitals,
// `_` or spaces), and that effective name never changes: renaming a bridge repo would orphan the workspaces
// and records filed under the old name, so a new name is a new Repo.
import { Type, type Static } from 'typebox';
import { DEFAULT_REPO_PROVIDER, REPO_PROVIDERS } from '../../protocol/bridge.js';
import { CLONE_URL_MAX_LENGTH } from '../../protocol/clone-url.js';
import { IDENTIFIER_MAX_BYTES } from '../../protocol/identifier-rules.js';
import {
  AGE_COLUMN,
  DeletionPolicy,
  IdentifierString,
  READY_COLUMN,
  REASON_COLUMN,
  ResourceStatus,
  type CelRule,
  type CustomResource,
  type CustomResourceKind,
} from './common.js';

/**
 * The providers the bridge serves (protocol's REPO_PROVIDERS). The bridge stores any non-empty string, but
 * another one only fails later (501 on an issue-based create), so the CRD refuses it at apply time, where a
 * typo like `GitHub` is cheapest to see.
 */
export const RepoProvider = Type.Enum([...REPO_PROVIDERS], {
  description:
    'The forge provider: custom (plain git, the default) or github (issues, pull requests, linked branches).',
  default: DEFAULT_REPO_PROVIDER,
});
export type RepoProvider = Static<typeof RepoProvider>;

export const RepoSpec = Type.Object(
  {
    name: Type.Optional(
      IdentifierString('The name to register in the bridge; defaults to metadata.name. Cannot be changed.'),
    ),
    url: Type.String({
      description: 'The clone URL (https, ssh or scp-like). Changing it replaces the bridge registration.',
      minLength: 1,
      maxLength: CLONE_URL_MAX_LENGTH,
      // What protocol/clone-url.ts refuses whatever the transport: a leading `-` or blank, control characters.
      // The transport allowlist depends on the bridge's flags, so the bridge judges it (Registered=False).
      pattern: String.raw`^[^-\s\p{Cc}]\P{Cc}*$`,
    }),
    provider: Type.Optional(RepoProvider),
    deletionPolicy: Type.Optional(DeletionPolicy),
  },
  { description: 'A repo for the operator to register with the bridge.' },
);
export type RepoSpec = Static<typeof RepoSpec>;

export const RepoResourceStatus = ResourceStatus({
  repoName: Type.Optional(Type.String({ description: 'The name the repo is registered under in the bridge.' })),
  registeredURL: Type.Optional(Type.String({ description: 'The clone URL the bridge holds.' })),
  provider: Type.Optional(Type.String({ description: 'The provider the bridge holds.' })),
});
export type RepoResourceStatus = Static<typeof RepoResourceStatus>;

export type RepoResource = CustomResource<'Repo', RepoSpec, RepoResourceStatus>;

/** The bridge name a Repo registers under. */
export function repoBridgeName(repo: Pick<RepoResource, 'metadata' | 'spec'>): string {
  return repo.spec.name ?? repo.metadata.name ?? '';
}

const EFFECTIVE_NAME = (object: string) => `(has(${object}.spec.name) ? ${object}.spec.name : ${object}.metadata.name)`;

/** On the whole object: the only place CEL sees metadata.name next to spec. */
const REPO_RULES: CelRule[] = [
  {
    rule: `has(self.spec.name) || size(self.metadata.name) <= ${IDENTIFIER_MAX_BYTES}`,
    message: `metadata.name is longer than ${IDENTIFIER_MAX_BYTES} characters, the longest bridge name: set spec.name`,
  },
  {
    rule: `${EFFECTIVE_NAME('self')} == ${EFFECTIVE_NAME('oldSelf')}`,
    message: 'the bridge name (spec.name, else metadata.name) cannot be changed: create a new Repo for another name',
  },
];

export const REPO: CustomResourceKind = {
  kind: 'Repo',
  plural: 'repos',
  singular: 'repo',
  shortNames: [],
  description: 'A git repository registered with the bridge by the svc operator.',
  spec: RepoSpec,
  status: RepoResourceStatus,
  rules: REPO_RULES,
  printerColumns: [
    {
      name: 'Repo',
      type: 'string',
      jsonPath: '.status.repoName',
      description: 'The name the bridge knows the repo by.',
    },
    { name: 'URL', type: 'string', jsonPath: '.spec.url' },
    { name: 'Provider', type: 'string', jsonPath: '.spec.provider' },
    READY_COLUMN,
    REASON_COLUMN,
    AGE_COLUMN,
  ],
};
