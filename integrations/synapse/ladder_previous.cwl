#!/usr/bin/env cwl-runner
# What score_ladder.cwl needs to decide a submission: its submitter, and the
# state and lead file of the submitter's last decision (once every earlier
# submission of the submitter is decided), or what was recorded for a
# submission decided before.
cwlVersion: v1.0
class: CommandLineTool
label: The submitter and the state of its last ladderboard decision

requirements:
  - class: InlineJavascriptRequirement
  - class: InitialWorkDirRequirement
    listing:
      - entryname: ladder_step.py
        entry:
          $include: ladder_step.py

hints:
  DockerRequirement:
    dockerPull: ladderboard-synapse:0.2.0

inputs:
  - id: submissionid
    type: int
    inputBinding: {prefix: -i, position: 2}
  - id: synapse_config
    type: File
    inputBinding: {prefix: -c, position: 2}
  - id: wait_seconds
    doc: How long to wait at most for the submitter's earlier submissions.
    type: float
    default: 3600
    inputBinding: {prefix: --wait, position: 2}

baseCommand: python3
arguments:
  - {valueFrom: ladder_step.py, position: 0}
  - {valueFrom: previous, position: 1}

outputs:
  - id: submitter
    type: string
    outputBinding:
      glob: submitter.txt
      loadContents: true
      outputEval: $(self[0].contents)
  - id: previous_state
    type: File?
    outputBinding:
      glob: previous_state.json
  - id: previousfile
    type: File?
    outputBinding:
      glob: previous_submission*
  - id: lead_id
    type: string?
    outputBinding:
      glob: lead_id.txt
      loadContents: true
      outputEval: "$(self.length ? self[0].contents : null)"
  - id: decided
    type: File?
    outputBinding:
      glob: decided.json
