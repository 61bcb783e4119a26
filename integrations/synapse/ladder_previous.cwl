#!/usr/bin/env cwl-runner
# The submitter of a submission and the state of its last ladderboard
# decision (the private annotation ladderboard_state), for score_ladder.cwl.
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
    dockerPull: ladderboard-synapse:0.1.0

inputs:
  - id: submissionid
    type: int
    inputBinding: {prefix: -i, position: 2}
  - id: synapse_config
    type: File
    inputBinding: {prefix: -c, position: 2}

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
