{{/*
Names, labels and the pieces every workload shares. `app.kubernetes.io/name` is always `svc`: the operator
finds the ship DaemonSet and its pods by `app.kubernetes.io/name=svc,app.kubernetes.io/component=ship`
(operator/reconcile/names.ts), so the chart has no nameOverride.
*/}}

{{- define "svc.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains "svc" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-svc" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels on every object; pass (dict "root" $ "component" "bridge"). */}}
{{- define "svc.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: svc
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
{{ include "svc.selectorLabels" . }}
{{- end -}}

{{/* The labels selectors use; pass (dict "root" $ "component" "bridge"). */}}
{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: svc
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end -}}

{{- define "svc.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* The Secrets the operator creates when absent (operator/reconcile/names.ts); not values: the operator has no flags for them. */}}
{{- define "svc.adminSecret" -}}svc-admin{{- end -}}
{{- define "svc.postgresSecret" -}}svc-postgres{{- end -}}

{{/*
GIT_ALLOW_PROTOCOL of the bridge and the ships: what protocol/clone-url.ts allows with --no-local-repos (no
file). Their own git calls set the same list; this covers any other git they start.
*/}}
{{- define "svc.gitAllowProtocol" -}}https:http:ssh:git{{- end -}}

{{- define "svc.bridgeServiceName" -}}{{ include "svc.fullname" . }}-bridge{{- end -}}
{{- define "svc.postgresqlName" -}}{{ include "svc.fullname" . }}-postgresql{{- end -}}

{{/* The bridge as the operator reaches it: its Service, inside the cluster. */}}
{{- define "svc.bridgeInternalUrl" -}}
{{- printf "http://%s.%s.svc:%v" (include "svc.bridgeServiceName" .) .Release.Namespace .Values.bridge.service.port -}}
{{- end -}}

{{/* The operator's token exchange as the ship and session-holder pods reach it: its Service (operator/service.yaml), inside the cluster. */}}
{{- define "svc.operatorExchangeUrl" -}}
{{- printf "http://%s-operator.%s.svc:8082" (include "svc.fullname" .) .Release.Namespace -}}
{{- end -}}

{{/*
The bridge's --public-url: the value, else https:// and the Ingress host, else https:// and the first Gateway
hostname, else the Service. https also without ingress.tls.secretName: TLS usually ends at the ingress
controller or a load balancer in front of it, not at a Secret of this chart (docs/DECISIONS.md, "Public
URL"); a plain-HTTP ingress sets bridge.publicUrl.
*/}}
{{- define "svc.publicUrl" -}}
{{- if .Values.bridge.publicUrl -}}
{{- .Values.bridge.publicUrl -}}
{{- else if and .Values.ingress.enabled .Values.ingress.host -}}
{{- printf "https://%s" .Values.ingress.host -}}
{{- else if and .Values.gateway.enabled .Values.gateway.hostnames -}}
{{- printf "https://%s" (first .Values.gateway.hostnames) -}}
{{- else -}}
{{- include "svc.bridgeInternalUrl" . -}}
{{- end -}}
{{- end -}}

{{/* Pod-level security context of the svc workloads: the image's fixed user (Dockerfile, UID/GID 10001). */}}
{{- define "svc.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
fsGroupChangePolicy: OnRootMismatch
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Container security context meeting the `restricted` Pod Security level, with a read-only root. */}}
{{- define "svc.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/*
`ship.sessionUser` as `--session-user` takes it (`uid:gid`, the gid defaulting to the uid); empty when off.
*/}}
{{- define "svc.sessionUser" -}}
{{- with .Values.ship.sessionUser -}}
{{- if or (eq (int .uid) 10001) (eq (int (.gid | default .uid)) 10001) -}}
{{- fail "ship.sessionUser: uid and gid must not be 10001, the image's user: it owns the node's fleet and home directories, so a session as that user or group would reach the ship's files (README \"Sessions as another user\")" -}}
{{- end -}}
{{- printf "%d:%d" (int .uid) (int (.gid | default .uid)) -}}
{{- end -}}
{{- end -}}

{{/*
Pod security context of the ship and session-holder pods: svc.podSecurityContext, and with `ship.sessionUser`
the same without its fsGroup. Every container then runs as root, so the kubelet writes the projected token
files 0600 root:root (its fsUser is the containers' one runAsUser; an fsGroup would make them 0640 to that
group): no session reads a token (README "Sessions as another user", docs/security.md H24). Root writes the
volumes without a group.
*/}}
{{- define "svc.shipPodSecurityContext" -}}
{{- if include "svc.sessionUser" . -}}
{{- omit (include "svc.podSecurityContext" . | fromYaml) "fsGroup" "fsGroupChangePolicy" | toYaml | trim -}}
{{- else -}}
{{- include "svc.podSecurityContext" . -}}
{{- end -}}
{{- end -}}

{{/*
Container security context of the ship and the session holder. With `ship.sessionUser` they run as root with
all capabilities dropped but the six that start the sessions as that user, hand clones to it and end its
processes (docs/security.md H24): Kubernetes gives added capabilities to a non-root container's bounding set
only, so root it must be. These capabilities are all on `baseline`'s list; root keeps the pods from
`restricted` (README "Pod Security").
*/}}
{{- define "svc.shipContainerSecurityContext" -}}
{{- if include "svc.sessionUser" . -}}
runAsNonRoot: false
runAsUser: 0
runAsGroup: 0
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop:
    - ALL
  add:
    - SETUID
    - SETGID
    - CHOWN
    - DAC_OVERRIDE
    - FOWNER
    - KILL
seccompProfile:
  type: RuntimeDefault
{{- else -}}
{{- include "svc.containerSecurityContext" . -}}
{{- end -}}
{{- end -}}

{{/* imagePullSecrets of a pod spec: each entry a Secret name or a `{name: …}` object (values.schema.json). */}}
{{- define "svc.imagePullSecrets" -}}
imagePullSecrets:
{{- range .Values.imagePullSecrets }}
  - name: {{ if kindIs "map" . }}{{ .name | quote }}{{ else }}{{ . | quote }}{{ end }}
{{- end }}
{{- end -}}

{{/* An environment variable from a key of a Secret: (dict "name" "ENV" "secret" "s" "key" "k"). */}}
{{- define "svc.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
{{- end -}}

{{/* The image the ships and the session holders run (the agents run in it): `ship.image`, else `image`. */}}
{{- define "svc.shipImage" -}}
{{- printf "%s:%s" (.Values.ship.image.repository | default .Values.image.repository) (.Values.ship.image.tag | default .Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/*
"true" when the sessions live in the session-holder DaemonSet: it needs the node's workspaces and home where
the ship has them (hostPath, or the node's directory of a sharedClaim), a node-local run/ to share the tmux
socket and the pane FIFOs (a hostPath: no other volume is shared by two pods of one node), and the node's
address to reach the ship at after a ship restart (a pod IP changes with the pod; docs/DECISIONS.md "A
node's ships").
*/}}
{{- define "svc.sessionHolder" -}}
{{- if and .Values.ship.enabled .Values.ship.sessionHolder.enabled (has .Values.ship.fleet.mode (list "hostPath" "sharedClaim")) (ne .Values.ship.registration "podIP") -}}true{{- end -}}
{{- end -}}

{{/*
The claim of ship.fleet.mode=sharedClaim: ship.fleet.existingClaim, else the release's own (ship/fleet-claim.yaml).
Refuses what that mode would ignore, so no one believes a size or class applies that does not.
*/}}
{{- define "svc.fleetClaimName" -}}
{{- $fleet := .Values.ship.fleet -}}
{{- if and $fleet.existingClaim (ne $fleet.mode "sharedClaim") -}}
{{- fail (printf "ship.fleet.existingClaim is the claim of ship.fleet.mode=sharedClaim only, and the mode is %s: set the mode to sharedClaim, or leave existingClaim empty (README \"Storage and disk guard\")" $fleet.mode) -}}
{{- end -}}
{{- if and $fleet.existingClaim (or $fleet.size $fleet.storageClassName) -}}
{{- fail "ship.fleet.existingClaim brings its own size and storage class: leave ship.fleet.size and ship.fleet.storageClassName empty with it (README \"Storage and disk guard\")" -}}
{{- end -}}
{{- $fleet.existingClaim | default (printf "%s-fleet" (include "svc.fullname" .)) -}}
{{- end -}}

{{/*
The strictest Pod Security level the ship pods meet (README "Pod Security"): `privileged` for a hostPath
volume, a hostPort or hostNetwork; else `baseline` with `ship.sessionUser` (root); `restricted` otherwise
(test/chart/ship-modes.test.ts checks each).
*/}}
{{- define "svc.shipPodSecurity" -}}
{{- if and .Values.ship.enabled (or (eq .Values.ship.fleet.mode "hostPath") (ne .Values.ship.registration "podIP")) -}}privileged
{{- else if and .Values.ship.enabled (include "svc.sessionUser" .) -}}baseline
{{- else -}}restricted{{- end -}}
{{- end -}}

{{/*
The enforced level: podSecurity.enforce, else `privileged` where the ships need it and `baseline` where they
do not (the level issue #30 asks for; `restricted` is accepted too). A level the ships do not meet fails.
*/}}
{{- define "svc.podSecurityEnforce" -}}
{{- $meets := include "svc.shipPodSecurity" . -}}
{{- $level := .Values.podSecurity.enforce | default (ternary "privileged" "baseline" (eq $meets "privileged")) -}}
{{- $rank := dict "privileged" 0 "baseline" 1 "restricted" 2 -}}
{{- if and (gt (int (get $rank $level)) (int (get $rank $meets))) (eq $meets "baseline") -}}
{{- fail (printf "podSecurity.enforce=%s would refuse the ship pods, which need baseline with ship.sessionUser set (root with the capabilities SETUID, SETGID, CHOWN, DAC_OVERRIDE, FOWNER and KILL; README \"Pod Security\"): enforce baseline, or leave ship.sessionUser empty" $level) -}}
{{- else if gt (int (get $rank $level)) (int (get $rank $meets)) -}}
{{- fail (printf "podSecurity.enforce=%s would refuse the ship pods, which need privileged with ship.fleet.mode=%s and ship.registration=%s (hostPath, hostPort or hostNetwork; README \"Pod Security\"): use ship.registration=podIP with fleet.mode emptyDir, volumeClaim or sharedClaim, or enforce privileged" $level .Values.ship.fleet.mode .Values.ship.registration) -}}
{{- end -}}
{{- $level -}}
{{- end -}}

{{/* The warned and audited level: podSecurity.warn, else one step above privileged (baseline) or restricted. */}}
{{- define "svc.podSecurityWarn" -}}
{{- .Values.podSecurity.warn | default (ternary "baseline" "restricted" (eq (include "svc.podSecurityEnforce" .) "privileged")) -}}
{{- end -}}

{{/*
An egress ipBlock for an allowlist entry's cidr, with the cloud metadata address excepted when the range
holds it (169.254.169.254 for IPv4; fd00:ec2::254, AWS's IPv6 one, from ::/0). IPv4 containment is computed
here: same network bits as 169.254.169.254 (2852039166) under the prefix length.
*/}}
{{- define "svc.egressIpBlock" -}}
{{- $cidr := . -}}
{{- $parts := splitList "/" $cidr -}}
{{- $prefix := int (last $parts) -}}
cidr: {{ $cidr }}
{{- if contains ":" $cidr }}
{{- if eq $prefix 0 }}
except:
  - fd00:ec2::254/128
{{- end }}
{{- else }}
{{- if eq $cidr "169.254.169.254/32" }}
{{- fail "ship.egress: 169.254.169.254/32 is the cloud metadata address; the ships' egress policy never allows it" }}
{{- end }}
{{- $ip := 0 -}}
{{- range splitList "." (first $parts) }}{{ $ip = add (mul $ip 256) (int .) }}{{ end -}}
{{- $block := 1 -}}
{{- range until (sub 32 $prefix | int) }}{{ $block = mul $block 2 }}{{ end -}}
{{- if eq (div $ip $block) (div 2852039166 $block) }}
except:
  - 169.254.169.254/32
{{- end }}
{{- end }}
{{- end -}}

{{/*
The ship's and the session holder's mounts of the node's directories, the same in both pods: fleet and home
(under the node's hostPath, or with sharedClaim under the claim's directory named after the node, NODE_NAME
from the downward API), and /tmp (tmux's socket, the pane FIFOs) shared when sessions are held: always the
node's hostPath run/, since a socket and a FIFO are the node's kernel's and a shared claim is not node-local.
*/}}
{{- define "svc.shipNodeMounts" -}}
{{- if eq .Values.ship.fleet.mode "sharedClaim" -}}
- name: fleet
  mountPath: /var/lib/svc/fleet
  subPathExpr: $(NODE_NAME)/fleet
- name: fleet
  mountPath: /home/svc
  subPathExpr: $(NODE_NAME)/home
{{- else -}}
- name: host
  mountPath: /var/lib/svc/fleet
  subPath: fleet
- name: host
  mountPath: /home/svc
  subPath: home
{{- end }}
{{- if include "svc.sessionHolder" . }}
- name: host
  mountPath: /tmp
  subPath: run
{{- end }}
{{- end -}}

{{/*
The init container that hands the node's directories to the image's user (fsGroup does not apply to hostPath);
with ship.sessionUser it also opens run/ (CAP_FOWNER: run/ is 10001's after the first start). With sharedClaim
the node's hostPath holds run/ alone (the claim is never chowned: README "Storage and disk guard").
*/}}
{{- define "svc.fleetOwnerInit" -}}
{{- $dirs := list "/host/fleet" "/host/home" "/host/run" -}}
{{- if eq .Values.ship.fleet.mode "sharedClaim" }}{{ $dirs = list "/host/run" }}{{ end -}}
- name: fleet-owner
  image: {{ include "svc.shipImage" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  command:
    - sh
    - -c
    {{- if include "svc.sessionUser" . }}
    # With ship.sessionUser, run/ (the pods' /tmp: the tmux socket directory, the agents' scratch space) is
    # 1777, so the session user reaches its socket and writes there (README "Security model").
    - mkdir -p {{ join " " $dirs }} && chown 10001:10001 /host {{ join " " $dirs }} && chmod 1777 /host/run
    {{- else }}
    - mkdir -p {{ join " " $dirs }} && chown 10001:10001 /host {{ join " " $dirs }}
    {{- end }}
  securityContext:
    runAsNonRoot: false
    runAsUser: 0
    runAsGroup: 0
    allowPrivilegeEscalation: false
    readOnlyRootFilesystem: true
    capabilities:
      drop:
        - ALL
      add:
        - CHOWN
        {{- if include "svc.sessionUser" . }}
        - FOWNER
        {{- end }}
    seccompProfile:
      type: RuntimeDefault
  volumeMounts:
    - name: host
      mountPath: /host
{{- end -}}

{{/* The names of ship.agentEnv, comma-separated: the ship's SVC_SESSION_ENV. */}}
{{- define "svc.agentEnvNames" -}}
{{- $names := list -}}
{{- range .Values.ship.agentEnv }}{{ $names = append $names .name }}{{ end -}}
{{- join "," $names -}}
{{- end -}}
