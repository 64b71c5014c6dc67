{{/* Chart name part of object names. */}}
{{- define "gw.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name prefix: fullnameOverride, else <release>-<name> unless the release name already holds it. */}}
{{- define "gw.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "gw.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object; commonLabels last so users can add, not silently replace, ours. */}}
{{- define "gw.labels" -}}
helm.sh/chart: {{ include "gw.chart" . }}
{{ include "gw.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gw
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector of the controller pods; immutable once installed, so it never includes user labels. */}}
{{- define "gw.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gw.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: controller
{{- end }}

{{/* Names of cluster-scoped RBAC objects carry the release namespace, so same-named releases in two
namespaces (several controllers in one cluster) do not collide. */}}
{{- define "gw.clusterName" -}}
{{- printf "%s-%s" (include "gw.fullname" .) .Release.Namespace | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gw.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gw.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Effective names; rendered explicitly so the flag and the GatewayClass can never disagree. */}}
{{- define "gw.gatewayClassName" -}}
{{- default "gw" .Values.gatewayClassName }}
{{- end }}

{{- define "gw.controllerName" -}}
{{- default "gw.dev/gateway-controller" .Values.controllerName }}
{{- end }}

{{/* Image reference from a per-component image, falling back field by field to the global image. */}}
{{- define "gw.imageRef" -}}
{{- $root := index . 0 }}
{{- $img := index . 1 }}
{{- $registry := default $root.Values.image.registry $img.registry }}
{{- $tag := default (default $root.Chart.AppVersion $root.Values.image.tag) $img.tag }}
{{- if $registry }}
{{- printf "%s/%s:%s" $registry $img.repository $tag }}
{{- else }}
{{- printf "%s:%s" $img.repository $tag }}
{{- end }}
{{- end }}

{{- define "gw.controllerImage" -}}
{{- include "gw.imageRef" (list . .Values.controller.image) }}
{{- end }}

{{- define "gw.proxyImage" -}}
{{- include "gw.imageRef" (list . .Values.proxy.image) }}
{{- end }}

{{/* Rules of the namespaced-writes role: the proxy workloads the deployer server-side applies and prunes. */}}
{{- define "gw.writeRules" -}}
- apiGroups: [""]
  resources: [configmaps, secrets, serviceaccounts, services]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [apps]
  resources: [daemonsets, deployments]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch, create, update, patch, delete]
{{- end }}

{{- define "gw.istioRules" -}}
- apiGroups: [networking.istio.io]
  resources: [serviceentries, workloadentries]
  verbs: [get, list, watch, create, update, patch, delete]
{{- end }}

{{/*
Writes scoped by rbac.gatewayNamespaces: a ClusterRole + ClusterRoleBinding when the list is empty,
else a Role + RoleBinding in each listed namespace. Argument: dict root, suffix, rules.
*/}}
{{- define "gw.scopedRole" -}}
{{- $root := .root }}
{{- $namespaces := $root.Values.rbac.gatewayNamespaces }}
{{- if not $namespaces }}
{{- $name := printf "%s-%s" (include "gw.clusterName" $root) .suffix | trunc 63 | trimSuffix "-" }}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $name }}
  labels:
    {{- include "gw.labels" $root | nindent 4 }}
rules:
  {{- .rules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ $name }}
  labels:
    {{- include "gw.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $name }}
subjects:
  - kind: ServiceAccount
    name: {{ include "gw.serviceAccountName" $root }}
    namespace: {{ $root.Release.Namespace }}
{{- else }}
{{- $name := printf "%s-%s" (include "gw.fullname" $root) .suffix | trunc 63 | trimSuffix "-" }}
{{- range $i, $ns := $namespaces }}
{{- if $i }}
---
{{- end }}
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $name }}
  namespace: {{ $ns }}
  labels:
    {{- include "gw.labels" $root | nindent 4 }}
rules:
  {{- $.rules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $name }}
  namespace: {{ $ns }}
  labels:
    {{- include "gw.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $name }}
subjects:
  - kind: ServiceAccount
    name: {{ include "gw.serviceAccountName" $root }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
{{- end }}
{{- end }}
