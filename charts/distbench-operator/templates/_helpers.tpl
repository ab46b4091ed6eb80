{{/* Chart name, at most 63 characters (a label value). */}}
{{- define "distbench-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name of the release's objects: the release name when it already holds
the chart name, else "<release>-<chart>"; at most 63 characters.
*/}}
{{- define "distbench-operator.fullname" -}}
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

{{- define "distbench-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "distbench-operator.labels" -}}
helm.sh/chart: {{ include "distbench-operator.chart" . }}
{{ include "distbench-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: distbench
{{- end }}

{{/*
What the Deployment and the Service select on. Not app.kubernetes.io/name:
distbench: that one is on the benchmark pods the operator creates.
*/}}
{{- define "distbench-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "distbench-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{- define "distbench-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "distbench-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "distbench-operator.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The default worker images the operator gives benchmarks that name none. */}}
{{- define "distbench-operator.workerImage" -}}
{{- printf "%s:%s" .Values.worker.image.repository (default .Chart.AppVersion .Values.worker.image.tag) }}
{{- end }}
{{- define "distbench-operator.cudaWorkerImage" -}}
{{- printf "%s:%s" .Values.worker.cudaImage.repository (default .Chart.AppVersion .Values.worker.cudaImage.tag) }}
{{- end }}

{{/* Namespace of the monitors, of the PrometheusRule and of the dashboard ConfigMap. */}}
{{- define "distbench-operator.monitorNamespace" -}}
{{- default .Release.Namespace .Values.serviceMonitor.namespace }}
{{- end }}
{{- define "distbench-operator.dashboardNamespace" -}}
{{- default .Release.Namespace .Values.grafanaDashboard.namespace }}
{{- end }}
{{- define "distbench-operator.ruleNamespace" -}}
{{- default .Release.Namespace .Values.prometheusRule.namespace }}
{{- end }}
