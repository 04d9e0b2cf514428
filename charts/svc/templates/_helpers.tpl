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
{{- define "svc.shipTokenSecret" -}}svc-ship-tokens{{- end -}}
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
