"""Model configurations (theory §1, §1.1): the published models' dimensions (``presets``)
and Hugging Face ``config.json`` files read into :class:`freege.params.Dims`
(``hf_config``)."""
