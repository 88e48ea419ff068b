"""The stable public names of docs/DESIGN.md section 5 still reach the model's code after the move into packages."""

import jbag_pipeline.bags
import jbag_pipeline.model
import jbag_pipeline.model.bags
import jbag_pipeline.model.tokenize
import jbag_pipeline.tokenize


def test_old_module_paths_and_the_model_package_name_the_same_functions():
    for name in ("tokenize_state", "tokenize_trajectory"):
        assert getattr(jbag_pipeline.tokenize, name) is getattr(jbag_pipeline.model.tokenize, name)
        assert getattr(jbag_pipeline.model, name) is getattr(jbag_pipeline.model.tokenize, name)
    assert jbag_pipeline.bags.jsd is jbag_pipeline.model.bags.jsd is jbag_pipeline.model.jsd
    assert jbag_pipeline.tokenize.tokenize_state({"a": [1, 2]}) == jbag_pipeline.model.tokenize.tokenize_state(
        {"a": [1, 2]})
    assert jbag_pipeline.bags.jsd({"x": 1}, {"x": 1}) == 0.0
    assert jbag_pipeline.bags.jsd({"x": 1}, {"y": 1}) > 0.0
