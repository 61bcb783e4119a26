#!/usr/bin/env cwl-runner
# The ladder step of a Synapse challenge workflow: a ladderboard mechanism
# decides the submission. It takes the place of score_ladder.cwl in a ladder
# workflow of Sage-Bionetworks/ChallengeWorkflowTemplates, after
# ladder_previous.cwl (docs/judge.md shows the wiring); annotate the
# submission with `results` (public) and `private_results` (to_public false).
cwlVersion: v1.0
class: CommandLineTool
label: Decide a submission with a ladderboard mechanism

requirements:
  - class: InlineJavascriptRequirement
  - class: InitialWorkDirRequirement
    listing:
      - entryname: ladder_step.py
        entry:
          $include: ladder_step.py

hints:
  DockerRequirement:
    # Built from the Dockerfile beside this file.
    dockerPull: ladderboard-synapse:0.2.0

inputs:
  - id: submissionid
    type: int
    inputBinding: {prefix: -i, position: 2}
  - id: inputfile
    type: File
    inputBinding: {prefix: -f, position: 2}
  - id: previousfile
    doc: The lead's file, from ladder_previous.cwl; none at first.
    type: File?
    inputBinding: {prefix: -p, position: 2}
  - id: lead_id
    doc: The lead's submission id, from ladder_previous.cwl; none at first.
    type: string?
    inputBinding: {prefix: --lead-id, position: 2}
  - id: previous_state
    doc: The state of the submitter's last decision, from ladder_previous.cwl.
    type: File?
    inputBinding: {prefix: --state, position: 2}
  - id: decided
    doc: What was recorded for a submission decided before, from ladder_previous.cwl.
    type: File?
    inputBinding: {prefix: --decided, position: 2}
  - id: goldstandard
    type: File
    inputBinding: {prefix: -g, position: 2}
  - id: key_file
    doc: The competition's key (32 hex digits), a private Synapse file like the gold standard.
    type: File
    inputBinding: {prefix: -k, position: 2}
  - id: status
    doc: The validation's status; only VALIDATED is scored.
    type: string
    inputBinding: {prefix: -s, position: 2}
  - id: submitter
    doc: The submitter's id, from ladder_previous.cwl.
    type: string
    inputBinding: {prefix: -t, position: 2}
  - id: score
    doc: A ladderboard loss or metric (`ladderboard scores`), e.g. zero_one, auc, spearman.
    type: string
    inputBinding: {prefix: --score, position: 2}
  - id: mechanism
    doc: A ladderboard mechanism, e.g. ladder, ladder-boot, shaky-ladder.
    type: string
    default: ladder
    inputBinding: {prefix: --mechanism, position: 2}
  - id: mechanism_params
    doc: The mechanism's parameters as a JSON object; those left out take their defaults.
    type: string
    default: "{}"
    inputBinding: {prefix: --params, position: 2}

baseCommand: python3
arguments:
  - {valueFrom: ladder_step.py, position: 0}
  - {valueFrom: score, position: 1}

outputs:
  - id: results
    type: File
    outputBinding:
      glob: results.json
  - id: private_results
    type: File
    outputBinding:
      glob: private.json
